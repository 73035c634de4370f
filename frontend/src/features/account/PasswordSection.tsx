import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import type { AuthError, GoTrueClient } from '@supabase/auth-js';
import { useState, type SyntheticEvent } from 'react';

import { useAppSelector } from '../../app/store';
import { selectAuthUser } from '../../session/authSlice';
import { passwordFormErrors, type PasswordFields } from './passwordForm';
import { loadPasswordStrength, PasswordStrengthMeter } from '../auth';

type Fields = PasswordFields;

type FieldErrors = Partial<Record<keyof Fields, string>>;

const EMPTY: Fields = { current: '', next: '', confirm: '' };

/** The inputs' `name`s, as password managers know them. */
const INPUT_NAMES: Record<keyof Fields, string> = {
  current: 'current-password',
  next: 'new-password',
  confirm: 'confirm-password',
};

/** Where a refusal of the identity service belongs, and what it says. */
function refusal(error: AuthError): FieldErrors | string {
  switch (error.code) {
    case 'invalid_credentials':
      return { current: 'That is not your current password.' };
    case 'weak_password':
    case 'validation_failed':
      return { next: error.message };
    case 'same_password':
      return { next: 'Choose a password that differs from the current one.' };
    case 'reauthentication_needed':
      // Asked although the current password was given: the account has none (it signs in with a
      // provider or e-mailed links).
      return 'Your account has no password yet. Choose one with “Forgot password?” on the sign-in page.';
    case 'over_request_rate_limit':
      return 'Too many attempts. Please wait a few minutes and try again.';
    default:
      return error.message || 'Your password could not be changed. Please try again.';
  }
}

/**
 * Change password (PRODUCT.md §1a, Account Security): the current password, always checked by the
 * identity service, and a new one with the strength meter. Changing it signs out the account's other
 * sessions.
 */
export function PasswordSection({ client }: { client: GoTrueClient }) {
  const email = useAppSelector(selectAuthUser)?.email ?? '';
  const [fields, setFields] = useState<Fields>(EMPTY);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);

  const edit = (name: keyof Fields) => (event: { target: { value: string } }) => {
    setFields((previous) => ({ ...previous, [name]: event.target.value }));
    setErrors((previous) => ({ ...previous, [name]: undefined }));
    setDone(false);
  };

  /** One password field of the form, with its error (or `hint`) below it. */
  const field = (name: keyof Fields, label: string, autoComplete: string, hint?: string) => (
    <TextField
      label={label}
      type="password"
      name={INPUT_NAMES[name]}
      autoComplete={autoComplete}
      required
      value={fields[name]}
      onChange={edit(name)}
      // The new password is judged as it is typed: its dictionaries start loading on focus.
      onFocus={
        name === 'next' ? () => void loadPasswordStrength().catch(() => undefined) : undefined
      }
      error={Boolean(errors[name])}
      helperText={errors[name] ?? hint}
    />
  );

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    setError(null);
    setDone(false);
    const invalid = passwordFormErrors(fields);
    setErrors(invalid);
    if (Object.keys(invalid).length > 0) return;
    setBusy(true);
    const { error: updateError } = await client.updateUser({
      password: fields.next,
      current_password: fields.current,
    });
    setBusy(false);
    if (updateError) {
      const said = refusal(updateError);
      if (typeof said === 'string') setError(said);
      else setErrors(said);
      return;
    }
    setFields(EMPTY);
    setDone(true);
  };

  return (
    <Paper variant="outlined" component="section" aria-labelledby="password-title" sx={{ p: 3 }}>
      <Typography id="password-title" variant="h6" component="h2" gutterBottom>
        Password
      </Typography>
      <Stack component="form" spacing={2} onSubmit={(e) => void submit(e)} noValidate>
        {done && (
          <Alert severity="success">
            Your password was changed. Your other sessions were signed out.
          </Alert>
        )}
        {error && (
          <Alert severity="error" role="alert">
            {error}
          </Alert>
        )}
        {/* For password managers: the account the new password belongs to. */}
        <input type="text" name="username" autoComplete="username" value={email} readOnly hidden />
        {field('current', 'Current password', 'current-password')}
        {field('next', 'New password', 'new-password', 'At least 12 characters.')}
        <PasswordStrengthMeter password={fields.next} email={email} />
        {field('confirm', 'Confirm new password', 'new-password')}
        <Button type="submit" variant="contained" disabled={busy} sx={{ alignSelf: 'flex-start' }}>
          Change password
        </Button>
      </Stack>
    </Paper>
  );
}

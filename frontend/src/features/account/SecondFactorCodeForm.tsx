import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import type { GoTrueClient } from '@supabase/auth-js';
import { useState, type ReactNode, type SyntheticEvent } from 'react';

import { authErrorMessage } from './messages';

/**
 * The code step of a second factor: the six-digit code of the authenticator app, or one of the recovery
 * codes. A right code raises this session to the second-factor level (auth-js saves it) and `onVerified`
 * runs. Used by the sign-in challenge and by the password confirmation of sudo mode (`ConfirmPassword`).
 * The error shown is the caller's too (a passkey's failure shows here when the form is shown).
 */
export function SecondFactorCodeForm({
  client,
  totpFactorId,
  hasRecoveryCodes,
  error,
  onError,
  disabled = false,
  onVerified,
  children,
}: {
  client: GoTrueClient;
  /** The authenticator app to check a code with; `null` when the account has only recovery codes. */
  totpFactorId: string | null;
  hasRecoveryCodes: boolean;
  error: string | null;
  onError: (error: string | null) => void;
  /** The caller is busy (another way through, or the code was verified). */
  disabled?: boolean;
  onVerified: () => Promise<void> | void;
  /** More actions below the form's own (a Cancel button). */
  children?: ReactNode;
}) {
  // Only recovery codes left (the authenticator app was removed): use them, unless the user chose otherwise.
  const [recoveryChosen, setRecoveryChosen] = useState<boolean | null>(null);
  const useRecovery = recoveryChosen ?? (totpFactorId === null && hasRecoveryCodes);
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);

  const submitRecoveryCode = async () => {
    const typed = code.replace(/[\s-]/g, '');
    if (!/^[0-9a-zA-Z]{16}$/.test(typed)) {
      onError('Enter one of your recovery codes: 16 letters and digits (dashes are optional).');
      return;
    }
    setBusy(true);
    onError(null);
    const { error: verifyError } = await client.mfa.recoveryCodes.verify({ code: code.trim() });
    if (verifyError) {
      setBusy(false);
      onError(
        verifyError.code === 'mfa_verification_failed'
          ? 'That recovery code is not right, or was already used.'
          : authErrorMessage(verifyError),
      );
      return;
    }
    await onVerified();
    setBusy(false);
  };

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    if (useRecovery) {
      await submitRecoveryCode();
      return;
    }
    if (!totpFactorId) return;
    if (!/^\d{6}$/.test(code.trim())) {
      onError('Enter the six-digit code from your authenticator app.');
      return;
    }
    setBusy(true);
    onError(null);
    const { error: verifyError } = await client.mfa.challengeAndVerify({
      factorId: totpFactorId,
      code: code.trim(),
    });
    if (verifyError) {
      setBusy(false);
      onError(authErrorMessage(verifyError));
      return;
    }
    await onVerified();
    setBusy(false);
  };

  const checking = busy || disabled;
  return (
    <Stack component="form" spacing={2} onSubmit={(e) => void submit(e)} noValidate>
      <Typography>
        {useRecovery
          ? 'Enter one of the recovery codes you saved. Each code works once.'
          : 'Enter the six-digit code that your authenticator app shows for this account.'}
      </Typography>
      {error && (
        <Alert severity="error" role="alert">
          {error}
        </Alert>
      )}
      <TextField
        key={useRecovery ? 'recovery' : 'totp'}
        label={useRecovery ? 'Recovery code' : 'Code'}
        value={code}
        onChange={(e) => {
          setCode(e.target.value);
        }}
        autoComplete={useRecovery ? 'off' : 'one-time-code'}
        autoFocus
        slotProps={{
          htmlInput: useRecovery
            ? { maxLength: 24, spellCheck: false, autoCapitalize: 'none' }
            : { inputMode: 'numeric', maxLength: 6 },
        }}
      />
      <Button type="submit" variant="contained" disabled={checking}>
        {checking ? 'Checking…' : 'Continue'}
      </Button>
      {hasRecoveryCodes && totpFactorId !== null && (
        <Button
          variant="text"
          onClick={() => {
            setRecoveryChosen(!useRecovery);
            setCode('');
            onError(null);
          }}
        >
          {useRecovery ? 'Use your authenticator app' : 'Use a recovery code'}
        </Button>
      )}
      {children}
    </Stack>
  );
}

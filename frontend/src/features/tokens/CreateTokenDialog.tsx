import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormGroup from '@mui/material/FormGroup';
import FormHelperText from '@mui/material/FormHelperText';
import FormLabel from '@mui/material/FormLabel';
import InputAdornment from '@mui/material/InputAdornment';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import CheckIcon from '@mui/icons-material/Check';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { useRef, useState, type SyntheticEvent } from 'react';
import { useStore } from 'react-redux';
import type { Store } from '@reduxjs/toolkit';
import { Link as RouterLink } from 'react-router';

import {
  apiErrorCode,
  errorMessage,
  isApiErrorBody,
  isFetchBaseQueryError,
} from '../../api/errors';
import type { CreatedAccessToken, TokenScope } from '../../api/types';
import type { RootState } from '../../app/store';
import { OutlinedField } from '../../components/OutlinedField';
import { paths } from '../../config/paths';
import { selectBearer } from '../../session/authSlice';
import { ConfirmPassword } from '../account';
import { useAuthClient } from '../auth';
import { useCreateTokenMutation } from './api';
import { clearDraft, saveDraft, type TokenDraft } from './draft';
import { DEFAULT_EXPIRY_DAYS, EXPIRY_DAYS, MAX_NAME_LENGTH, SCOPES, formatDate } from './format';

/** The value of the organization select that stands for every organization of the user. */
const ALL_ORGS = '';

export interface OrgChoice {
  id: string;
  name: string;
}

type Field = 'name' | 'orgId' | 'scopes' | 'expiresInDays';
type FieldErrors = Partial<Record<Field, string>>;

/** Why the server asked the session to confirm it before making a token. */
type Refusal = 'MFA_REQUIRED' | 'RECENT_SIGN_IN_NEEDED';

/** How long to wait for the session signed in again to reach the store. */
const NEW_CREDENTIAL_WAIT_MS = 10_000;

/** Resolves once the store holds another credential than `before` (or after a while, whatever it holds). */
function newCredential(store: Store<RootState>, before: string | null): Promise<void> {
  return new Promise((resolve) => {
    if (selectBearer(store.getState()) !== before) {
      resolve();
      return;
    }
    const done = () => {
      clearTimeout(timer);
      unsubscribe();
      resolve();
    };
    const timer = setTimeout(done, NEW_CREDENTIAL_WAIT_MS);
    const unsubscribe = store.subscribe(() => {
      if (selectBearer(store.getState()) !== before) done();
    });
  });
}

function validate(draft: TokenDraft): FieldErrors {
  const errors: FieldErrors = {};
  const name = draft.name.trim();
  if (!name) errors.name = 'Name the token after what will use it.';
  else if (name.length > MAX_NAME_LENGTH)
    errors.name = `At most ${String(MAX_NAME_LENGTH)} characters.`;
  if (draft.scopes.length === 0) errors.scopes = 'Choose at least one scope.';
  return errors;
}

/** The server's field errors (400 `VALIDATION`), by the dialog's fields. */
function serverFieldErrors(error: unknown): FieldErrors {
  if (!isFetchBaseQueryError(error) || !isApiErrorBody(error.data)) return {};
  const fields = error.data.fields ?? {};
  const found: FieldErrors = {};
  for (const field of ['name', 'orgId', 'scopes', 'expiresInDays'] as const) {
    if (fields[field]) found[field] = fields[field];
  }
  return found;
}

export interface CreateTokenDialogProps {
  open: boolean;
  onClose: () => void;
  /** The user's organizations. */
  orgs: OrgChoice[];
  /** The organization chosen at first (the current one). */
  defaultOrgId: string | null;
  /** What the dialog held before the user went to confirm it's them. */
  draft?: TokenDraft | null;
}

/** The create dialog: mounted afresh each time it opens, so that a token shown once is gone after. */
export function CreateTokenDialog(props: CreateTokenDialogProps) {
  return props.open ? <CreateTokenDialogBody {...props} /> : null;
}

function CreateTokenDialogBody({ onClose, orgs, defaultOrgId, draft }: CreateTokenDialogProps) {
  const [values, setValues] = useState<TokenDraft>(
    () =>
      draft ?? {
        name: '',
        orgId: defaultOrgId ?? ALL_ORGS,
        scopes: ['apps:read'],
        expiresInDays: DEFAULT_EXPIRY_DAYS,
      },
  );
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [reauthenticating, setReauthenticating] = useState(false);
  const [created, setCreated] = useState<CreatedAccessToken | null>(null);
  const [create, { isLoading }] = useCreateTokenMutation();
  const client = useAuthClient();
  const store = useStore<RootState>();
  // The credential of the session the server refused: signing in again replaces it.
  const bearerBefore = useRef<string | null>(null);
  const [retrying, setRetrying] = useState(false);
  const nameRef = useRef<HTMLInputElement>(null);

  const submit = async (event?: SyntheticEvent) => {
    event?.preventDefault();
    setFailure(null);
    setRefusal(null);
    const found = validate(values);
    setErrors(found);
    if (Object.keys(found).length > 0) {
      if (found.name) nameRef.current?.focus();
      return;
    }
    try {
      const token = await create({
        name: values.name.trim(),
        orgId: values.orgId === ALL_ORGS ? null : values.orgId,
        scopes: values.scopes,
        expiresInDays: values.expiresInDays,
      }).unwrap();
      clearDraft();
      setCreated(token);
    } catch (error) {
      const code = apiErrorCode(error);
      if (code === 'MFA_REQUIRED' || code === 'RECENT_SIGN_IN_NEEDED') {
        // The user leaves to confirm it's them: what they typed waits for them here.
        saveDraft(values);
        setRefusal(code);
        return;
      }
      const fields = serverFieldErrors(error);
      setErrors(fields);
      setFailure(errorMessage(error, 'The token could not be created. Please try again.'));
    }
  };

  /** Signed in again: the token is asked for once the new session's credential has arrived. */
  const retryWithNewSession = async () => {
    setReauthenticating(false);
    setRetrying(true);
    await newCredential(store, bearerBefore.current);
    setRetrying(false);
    await submit();
  };

  const close = () => {
    clearDraft();
    onClose();
  };

  const toggleScope = (scope: TokenScope, on: boolean) => {
    setValues((previous) => ({
      ...previous,
      // Kept in the server's order.
      scopes: SCOPES.map((s) => s.scope).filter((s) =>
        s === scope ? on : previous.scopes.includes(s),
      ),
    }));
    setErrors((previous) => ({ ...previous, scopes: undefined }));
  };

  if (created) {
    return (
      <Dialog open onClose={onClose} fullWidth maxWidth="sm" aria-labelledby="token-created-title">
        <DialogTitle id="token-created-title">Your new access token</DialogTitle>
        <DialogContent>
          <TokenShownOnce token={created} orgs={orgs} />
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} variant="contained">
            Done
          </Button>
        </DialogActions>
      </Dialog>
    );
  }

  const busy = isLoading || retrying;
  return (
    <Dialog open onClose={close} fullWidth maxWidth="sm" aria-labelledby="token-create-title">
      <DialogTitle id="token-create-title">Create access token</DialogTitle>
      <DialogContent>
        {/* The password form of a new sign-in stands apart: a form inside a form would submit both. */}
        <Stack spacing={2} sx={{ mb: refusal || failure ? 2.5 : 0 }}>
          {refusal === 'MFA_REQUIRED' && (
            <Alert
              severity="warning"
              role="alert"
              action={
                <Button
                  component={RouterLink}
                  to={paths.mfaChallenge(paths.accessTokens)}
                  color="inherit"
                  size="small"
                  sx={{ whiteSpace: 'nowrap' }}
                >
                  Confirm it’s you
                </Button>
              }
            >
              Confirm it’s you with your second factor to create an access token. What you typed
              here is kept for when you come back.
            </Alert>
          )}
          {refusal === 'RECENT_SIGN_IN_NEEDED' &&
            (reauthenticating && client ? (
              <ConfirmPassword
                client={client}
                what="create an access token"
                onConfirmed={retryWithNewSession}
                onCancel={() => {
                  setReauthenticating(false);
                }}
              />
            ) : (
              <Alert
                severity="warning"
                role="alert"
                action={
                  <Button
                    color="inherit"
                    size="small"
                    sx={{ whiteSpace: 'nowrap' }}
                    onClick={() => {
                      bearerBefore.current = selectBearer(store.getState());
                      setReauthenticating(true);
                    }}
                  >
                    Sign in again
                  </Button>
                }
              >
                <AlertTitle>Sign in again to create a token</AlertTitle>
                Your last sign-in was more than 10 minutes ago. Sign in again, then the token is
                created with what you typed here.
              </Alert>
            ))}
          {failure && (
            <Alert severity="error" role="alert">
              {failure}
            </Alert>
          )}
        </Stack>
        <Stack
          component="form"
          id="token-create-form"
          spacing={2.5}
          onSubmit={(event) => void submit(event)}
          noValidate
          sx={{ pt: 1 }}
        >
          <TextField
            label="Name"
            required
            autoFocus
            inputRef={nameRef}
            value={values.name}
            onChange={(event) => {
              setValues((previous) => ({ ...previous, name: event.target.value }));
              setErrors((previous) => ({ ...previous, name: undefined }));
            }}
            error={Boolean(errors.name)}
            helperText={
              errors.name ??
              'What will use it, such as “GitHub Actions deploy”. Up to 100 characters.'
            }
            slotProps={{ htmlInput: { maxLength: MAX_NAME_LENGTH + 20 } }}
            disabled={busy}
            fullWidth
          />
          <TextField
            select
            label="Organization"
            value={values.orgId}
            onChange={(event) => {
              setValues((previous) => ({ ...previous, orgId: event.target.value }));
              setErrors((previous) => ({ ...previous, orgId: undefined }));
            }}
            error={Boolean(errors.orgId)}
            helperText={errors.orgId ?? 'Where it may act. One organization is safest.'}
            disabled={busy}
            fullWidth
          >
            {orgs.map((org) => (
              <MenuItem key={org.id} value={org.id}>
                {org.name}
              </MenuItem>
            ))}
            <MenuItem value={ALL_ORGS}>All your organizations</MenuItem>
          </TextField>
          <FormControl
            component="fieldset"
            error={Boolean(errors.scopes)}
            disabled={busy}
            aria-describedby="token-scopes-help"
          >
            <FormLabel component="legend">Scopes</FormLabel>
            <FormGroup>
              {SCOPES.map(({ scope, explanation }) => (
                <FormControlLabel
                  key={scope}
                  sx={{ alignItems: 'flex-start', mt: 0.5 }}
                  control={
                    <Checkbox
                      checked={values.scopes.includes(scope)}
                      onChange={(event) => {
                        toggleScope(scope, event.target.checked);
                      }}
                      sx={{ pt: 0.25 }}
                    />
                  }
                  label={
                    <Box>
                      <Box component="span" sx={{ fontFamily: 'monospace', fontWeight: 600 }}>
                        {scope}
                      </Box>
                      <Typography variant="body2" color="text.secondary">
                        {explanation}
                      </Typography>
                    </Box>
                  }
                />
              ))}
            </FormGroup>
            <FormHelperText id="token-scopes-help">
              {errors.scopes ?? 'Choose only what it needs; at least one.'}
            </FormHelperText>
          </FormControl>
          <TextField
            select
            label="Expires after"
            value={String(values.expiresInDays)}
            onChange={(event) => {
              setValues((previous) => ({
                ...previous,
                expiresInDays: Number(event.target.value),
              }));
              setErrors((previous) => ({ ...previous, expiresInDays: undefined }));
            }}
            error={Boolean(errors.expiresInDays)}
            helperText={errors.expiresInDays ?? 'Every token expires; make a new one when it does.'}
            disabled={busy}
            fullWidth
          >
            {EXPIRY_DAYS.map((days) => (
              <MenuItem key={days} value={String(days)}>
                {days} days{days === DEFAULT_EXPIRY_DAYS ? ' (recommended)' : ''}
              </MenuItem>
            ))}
          </TextField>
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={close} disabled={isLoading}>
          Cancel
        </Button>
        <Button type="submit" form="token-create-form" variant="contained" disabled={busy}>
          {busy ? 'Creating…' : 'Create token'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** The token just made: shown this once, with a copy button and how to use it. */
function TokenShownOnce({ token, orgs }: { token: CreatedAccessToken; orgs: OrgChoice[] }) {
  const [copied, setCopied] = useState(false);
  const [copyFailed, setCopyFailed] = useState(false);
  const origin = window.location.origin;
  const orgId = token.orgId ?? orgs[0]?.id ?? '<organization id>';

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(token.token);
      setCopied(true);
      setCopyFailed(false);
    } catch {
      setCopied(false);
      setCopyFailed(true);
    }
  };

  return (
    <Stack spacing={2}>
      <Alert severity="warning">
        <AlertTitle>Copy it now: it will not be shown again</AlertTitle>
        Store it where it will be used, such as a CI secret. If you lose it, revoke it and create a
        new one.
      </Alert>
      <OutlinedField
        label={`${token.name} (expires ${formatDate(token.expiresAt)})`}
        value={token.token}
        fullWidth
        readOnly
        shrinkLabel
        inputProps={{ spellCheck: false, 'data-testid': 'new-token' }}
        slotProps={{ input: { sx: { fontFamily: 'monospace', fontSize: '0.875rem' } } }}
        onFocus={(event) => {
          event.target.select();
        }}
        endAdornment={
          <InputAdornment position="end">
            <Button
              onClick={() => void copy()}
              startIcon={copied ? <CheckIcon /> : <ContentCopyIcon />}
              size="small"
              aria-label={copied ? 'Copied' : 'Copy token'}
            >
              {copied ? 'Copied' : 'Copy'}
            </Button>
          </InputAdornment>
        }
      />
      <div role="status" aria-live="polite">
        {copied && <Alert severity="success">Copied to the clipboard.</Alert>}
        {copyFailed && (
          <Alert severity="info">
            Your browser did not allow copying. Select the token and copy it yourself.
          </Alert>
        )}
      </div>
      <Box>
        <Typography variant="subtitle2" component="h3" gutterBottom>
          Use it
        </Typography>
        <Typography variant="body2" color="text.secondary" gutterBottom>
          Sign the command-line tool in with it (it asks for the token), or send it as a bearer
          token:
        </Typography>
        <Box
          component="pre"
          sx={{
            m: 0,
            p: 1.5,
            borderRadius: 1,
            bgcolor: 'action.hover',
            fontFamily: 'monospace',
            fontSize: '0.8125rem',
            whiteSpace: 'pre-wrap',
            overflowWrap: 'anywhere',
          }}
        >
          {`devportal login --url ${origin}\n\ncurl -H "Authorization: Bearer dpt_…" \\\n  -H "x-org-id: ${orgId}" \\\n  ${origin}/api/dev/apps`}
        </Box>
      </Box>
    </Stack>
  );
}

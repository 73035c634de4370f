import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import { useRef, useState, type SyntheticEvent } from 'react';
import { useStore } from 'react-redux';

import { apiErrorCode, errorMessage } from '../../api/errors';
import type { CreatedAccessToken } from '../../api/types';
import type { RootState } from '../../app/store';
import { selectBearer } from '../../session/authSlice';
import { useCreateTokenMutation } from './api';
import { ConfirmItsYou } from './ConfirmItsYou';
import {
  ALL_ORGS,
  newCredential,
  serverFieldErrors,
  validate,
  type Field,
  type FieldErrors,
  type OrgChoice,
  type Refusal,
} from './createToken';
import { clearDraft, saveDraft, type TokenDraft } from './draft';
import { DEFAULT_EXPIRY_DAYS } from './format';
import { TOKEN_FORM_ID, TokenFields } from './TokenFields';
import { TokenShownOnce } from './TokenShownOnce';

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

  const change = (field: Field, update: (previous: TokenDraft) => Partial<TokenDraft>) => {
    setValues((previous) => ({ ...previous, ...update(previous) }));
    setErrors((previous) => ({ ...previous, [field]: undefined }));
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
          <ConfirmItsYou
            refusal={refusal}
            reauthenticating={reauthenticating}
            onSignInAgain={() => {
              bearerBefore.current = selectBearer(store.getState());
              setReauthenticating(true);
            }}
            onConfirmed={retryWithNewSession}
            onCancel={() => {
              setReauthenticating(false);
            }}
          />
          {failure && (
            <Alert severity="error" role="alert">
              {failure}
            </Alert>
          )}
        </Stack>
        <TokenFields
          values={values}
          errors={errors}
          orgs={orgs}
          busy={busy}
          nameRef={nameRef}
          onChange={change}
          onSubmit={(event) => void submit(event)}
        />
      </DialogContent>
      <DialogActions>
        <Button onClick={close} disabled={isLoading}>
          Cancel
        </Button>
        <Button type="submit" form={TOKEN_FORM_ID} variant="contained" disabled={busy}>
          {busy ? 'Creating…' : 'Create token'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

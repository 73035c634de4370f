import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import type { GoTrueClient, PasskeyListItem } from '@supabase/auth-js';
import { useState, type ReactNode, type SyntheticEvent } from 'react';

import { atPasskeyOrigin, passkeysElsewhere } from '../auth';
import { usePublicConfig } from '../publicConfig';
import { deviceLabel } from './deviceLabel';
import { ConfirmPassword } from './ConfirmPassword';
import {
  accountErrorCode,
  accountErrorMessage,
  identityKey,
  useAddPasskeyMutation,
  useListPasskeysQuery,
  useRemovePasskeyMutation,
  useRenamePasskeyMutation,
} from './api';

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const MAX_NAME = 120;

/** What a passkey is called when it has no name. */
function nameOf(passkey: PasskeyListItem): string {
  return passkey.friendly_name ?? 'Passkey';
}

/** This browser as a passkey's name ("Chrome on Linux"), or nothing when it cannot be told. */
function browserName(): string {
  const label = deviceLabel(navigator.userAgent);
  return label.startsWith('Unknown') || label.includes('unknown') ? '' : label.slice(0, MAX_NAME);
}

/**
 * Passkeys on Account Security (PRODUCT.md §1a): add one with a name, list them (name, added, last used),
 * rename, remove. A passkey signs in without a password, at the second-factor level.
 */
export function PasskeysSection({
  client,
  onAdded,
  nextStep,
}: {
  client: GoTrueClient;
  /** Called once a passkey was added. */
  onAdded?: () => void;
  /** Shown once a passkey was added here (the way back to where the user was going). */
  nextStep?: ReactNode;
}) {
  const key = identityKey(client);
  const list = useListPasskeysQuery(key, { refetchOnMountOrArgChange: true });
  const [addPasskey] = useAddPasskeyMutation();
  const [renamePasskey] = useRenamePasskeyMutation();
  const [removePasskey] = useRemovePasskeyMutation();
  const [added, setAdded] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [renaming, setRenaming] = useState<{ id: string; name: string } | null>(null);
  const [reauthenticating, setReauthenticating] = useState(false);
  // A server at a loopback IP address serves passkeys at `localhost` only: they are listed here, and added
  // there.
  const elsewhere = passkeysElsewhere(usePublicConfig());
  // A server whose public address is an IP address serves no passkeys: nothing to retry.
  const disabled = list.isError && accountErrorCode(list.error) === 'passkey_disabled';
  const passkeys = list.data;

  const add = async (event?: SyntheticEvent) => {
    event?.preventDefault();
    const wanted = name.trim();
    if (wanted.length > MAX_NAME) {
      setError(`A name has at most ${MAX_NAME} characters.`);
      return;
    }
    setBusy(true);
    setError(null);
    setNotice(null);
    // Without a name typed, it is named after this browser ("Chrome on Linux"), which tells two apart
    // better than "Passkey".
    const result = await addPasskey({ key, name: wanted || browserName() });
    setBusy(false);
    if (result.error) {
      // Too long since this session's sign-in: the password is asked for, then the passkey added.
      if (accountErrorCode(result.error) === 'reauthentication_needed') setReauthenticating(true);
      else setError(accountErrorMessage(result.error));
      return;
    }
    setReauthenticating(false);
    if (result.data.renameError) setError(result.data.renameError);
    setName('');
    setNotice('Your passkey is set up. Use it to sign in without a password.');
    setAdded(true);
    onAdded?.();
  };

  const rename = async (event: SyntheticEvent) => {
    event.preventDefault();
    if (!renaming) return;
    const wanted = renaming.name.trim();
    if (!wanted || wanted.length > MAX_NAME) {
      setError(`Give the passkey a name of 1 to ${MAX_NAME} characters.`);
      return;
    }
    setBusy(true);
    setError(null);
    const result = await renamePasskey({ key, passkeyId: renaming.id, name: wanted });
    setBusy(false);
    if (result.error) {
      setError(accountErrorMessage(result.error));
      return;
    }
    setRenaming(null);
  };

  const remove = async (passkey: PasskeyListItem) => {
    setError(null);
    setNotice(null);
    const result = await removePasskey({ key, passkeyId: passkey.id });
    if (result.error) {
      setError(accountErrorMessage(result.error));
      return;
    }
    setNotice(`${nameOf(passkey)} was removed.`);
  };

  return (
    <Paper variant="outlined" component="section" aria-labelledby="passkeys-title" sx={{ p: 3 }}>
      <Typography id="passkeys-title" variant="h6" component="h2" gutterBottom>
        Passkeys
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 2 }}>
        A passkey signs you in with your device’s screen lock or a security key instead of a
        password, and counts as your second factor.
      </Typography>
      <Stack spacing={2}>
        {notice && <Alert severity="success">{notice}</Alert>}
        {added && nextStep}
        {error && (
          <Alert severity="error" role="alert">
            {error}
          </Alert>
        )}
        {!disabled && elsewhere && (
          <Alert severity="info">
            Browsers accept passkeys only on a named site, not on an IP address. To add a passkey or
            sign in with one, open the portal at{' '}
            <Link href={atPasskeyOrigin(elsewhere, window.location)} underline="always">
              {elsewhere}
            </Link>{' '}
            (you sign in there once more).
          </Alert>
        )}
        {disabled ? (
          <Alert severity="info">Passkeys are not available on this server.</Alert>
        ) : list.isError ? (
          <Alert
            severity="error"
            action={
              <Button color="inherit" onClick={() => void list.refetch()}>
                Retry
              </Button>
            }
          >
            {accountErrorMessage(list.error, 'Could not read your passkeys.')}
          </Alert>
        ) : passkeys === undefined ? (
          <Skeleton variant="rounded" height={56} aria-label="Loading your passkeys" />
        ) : passkeys.length === 0 ? (
          <Typography>No passkey yet.</Typography>
        ) : (
          <List aria-label="Your passkeys">
            {passkeys.map((passkey) =>
              renaming?.id === passkey.id ? (
                <ListItem key={passkey.id} divider>
                  <Stack
                    component="form"
                    direction={{ xs: 'column', sm: 'row' }}
                    spacing={1}
                    onSubmit={(e) => void rename(e)}
                    noValidate
                    sx={{ width: '100%' }}
                  >
                    <TextField
                      label="New name"
                      size="small"
                      value={renaming.name}
                      autoFocus
                      onChange={(e) => {
                        setRenaming({ id: passkey.id, name: e.target.value });
                      }}
                      slotProps={{ htmlInput: { maxLength: MAX_NAME } }}
                    />
                    <Button type="submit" variant="contained" disabled={busy}>
                      Save
                    </Button>
                    <Button
                      onClick={() => {
                        setRenaming(null);
                      }}
                    >
                      Cancel
                    </Button>
                  </Stack>
                </ListItem>
              ) : (
                <ListItem
                  key={passkey.id}
                  divider
                  secondaryAction={
                    <Stack direction="row" spacing={1}>
                      <Button
                        aria-label={`Rename ${nameOf(passkey)}`}
                        onClick={() => {
                          setRenaming({ id: passkey.id, name: nameOf(passkey) });
                        }}
                      >
                        Rename
                      </Button>
                      <Button
                        color="error"
                        aria-label={`Remove ${nameOf(passkey)}`}
                        onClick={() => void remove(passkey)}
                      >
                        Remove
                      </Button>
                    </Stack>
                  }
                >
                  <ListItemText
                    sx={{ pr: 20 }}
                    primary={nameOf(passkey)}
                    secondary={`Added ${dateFormat.format(new Date(passkey.created_at))} · ${
                      passkey.last_used_at
                        ? `last used ${dateFormat.format(new Date(passkey.last_used_at))}`
                        : 'never used'
                    }`}
                  />
                </ListItem>
              ),
            )}
          </List>
        )}
        {reauthenticating && (
          <ConfirmPassword
            client={client}
            what="add a passkey"
            onConfirmed={() => add()}
            onCancel={() => {
              setReauthenticating(false);
            }}
          />
        )}
        <Stack
          component="form"
          direction={{ xs: 'column', sm: 'row' }}
          spacing={1}
          onSubmit={(e) => void add(e)}
          noValidate
          sx={{ display: disabled || elsewhere || reauthenticating ? 'none' : undefined }}
        >
          <TextField
            label="Passkey name"
            size="small"
            placeholder="e.g. Work laptop"
            helperText="Left empty, it is named after this browser."
            value={name}
            onChange={(e) => {
              setName(e.target.value);
            }}
            slotProps={{ htmlInput: { maxLength: MAX_NAME } }}
          />
          <Button type="submit" variant="contained" disabled={busy}>
            {busy ? 'Waiting for your device…' : 'Add a passkey'}
          </Button>
        </Stack>
      </Stack>
    </Paper>
  );
}

import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { GoTrueClient } from '@supabase/auth-js';
import { useCallback, useEffect, useState } from 'react';

import { authErrorMessage } from './messages';
import { formatRecoveryCode, recoveryCodesText } from './recoveryCodes';

/** What the section knows of the account's codes. */
type Status =
  | { kind: 'loading' }
  | { kind: 'error'; message: string }
  /** No set yet; `canMake` when the account has a verified authenticator app. */
  | { kind: 'none'; canMake: boolean }
  | { kind: 'set'; total: number; remaining: number };

/**
 * Recovery codes (PRODUCT.md §1a): ten single-use codes that pass the second step of sign-in when the
 * authenticator app is not at hand. Made (or made anew, which retires the old ones) from a session that
 * passed its second factor, shown once with copy and download, then only how many are left.
 */
export function RecoveryCodesSection({ client }: { client: GoTrueClient }) {
  const [status, setStatus] = useState<Status>({ kind: 'loading' });
  const [shown, setShown] = useState<string[] | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);

  // The factors say whether there is a set: its status is asked only then (the identity service answers
  // 404 for an account without one, which the browser would log as an error on every visit).
  const load = useCallback(async (): Promise<Status> => {
    const { data: factors, error: listError } = await client.mfa.listFactors();
    if (listError) return { kind: 'error', message: authErrorMessage(listError) };
    const none: Status = { kind: 'none', canMake: factors.totp.length > 0 };
    if (!factors.all.some((factor) => factor.factor_type === 'recovery_code')) return none;
    const { data, error: statusError } = await client.mfa.recoveryCodes.getStatus();
    if (!statusError) return { kind: 'set', total: data.total, remaining: data.remaining };
    // Gone since the factors were read.
    if (statusError.code === 'mfa_factor_not_found') return none;
    return { kind: 'error', message: authErrorMessage(statusError) };
  }, [client]);

  useEffect(() => {
    let live = true;
    const refresh = () => {
      void load().then((next) => {
        if (live) setStatus(next);
      });
    };
    refresh();
    // A new authenticator app (or a challenge passed) may make codes possible.
    const { data } = client.onAuthStateChange((event) => {
      if (event === 'MFA_CHALLENGE_VERIFIED' || event === 'USER_UPDATED') refresh();
    });
    return () => {
      live = false;
      data.subscription.unsubscribe();
    };
  }, [client, load]);

  const reload = async () => {
    setStatus({ kind: 'loading' });
    setStatus(await load());
  };

  const make = async () => {
    setConfirming(false);
    setBusy(true);
    setError(null);
    setCopied(false);
    const result =
      status.kind === 'set'
        ? await client.mfa.recoveryCodes.regenerate()
        : await client.mfa.recoveryCodes.generate();
    setBusy(false);
    if (result.error) {
      setError(authErrorMessage(result.error));
      return;
    }
    setShown(result.data.codes);
    setStatus({ kind: 'set', total: result.data.total, remaining: result.data.codes.length });
  };

  const copy = async () => {
    if (!shown) return;
    try {
      await navigator.clipboard.writeText(recoveryCodesText(shown));
      setCopied(true);
    } catch {
      setError(
        'The codes could not be copied. Select them and copy them by hand, or download them.',
      );
    }
  };

  const download = () => {
    if (!shown) return;
    const blob = new Blob([recoveryCodesText(shown)], { type: 'text/plain' });
    const url = URL.createObjectURL(blob);
    const link = document.createElement('a');
    link.href = url;
    link.download = 'recovery-codes.txt';
    link.click();
    URL.revokeObjectURL(url);
  };

  let body;
  if (status.kind === 'loading') {
    body = <Skeleton variant="rounded" height={56} aria-label="Loading your recovery codes" />;
  } else if (status.kind === 'error') {
    body = (
      <Alert
        severity="error"
        action={
          <Button color="inherit" onClick={() => void reload()}>
            Retry
          </Button>
        }
      >
        {status.message}
      </Alert>
    );
  } else if (status.kind === 'none') {
    body = status.canMake ? (
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
        <Typography sx={{ flexGrow: 1 }}>No recovery codes yet.</Typography>
        <Button variant="contained" onClick={() => void make()} disabled={busy}>
          Make recovery codes
        </Button>
      </Stack>
    ) : (
      <Typography>Add an authenticator app first: recovery codes stand in for it.</Typography>
    );
  } else {
    body = (
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
        <Typography sx={{ flexGrow: 1 }} data-testid="recovery-codes-remaining">
          {status.remaining} of {status.total} codes unused.
          {status.remaining <= 3 && ' Make new ones before you run out.'}
        </Typography>
        <Button
          variant="outlined"
          onClick={() => {
            setConfirming(true);
          }}
          disabled={busy}
        >
          Make new codes
        </Button>
      </Stack>
    );
  }

  return (
    <Paper
      variant="outlined"
      component="section"
      aria-labelledby="recovery-codes-title"
      sx={{ p: 3 }}
    >
      <Typography id="recovery-codes-title" variant="h6" component="h2" gutterBottom>
        Recovery codes
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 2 }}>
        If you lose your phone, each of these codes lets you sign in once instead of a code from
        your authenticator app. Keep them somewhere safe.
      </Typography>
      <Stack spacing={2}>
        {error && (
          <Alert severity="error" role="alert">
            {error}
          </Alert>
        )}
        {shown && (
          <Alert severity="warning" icon={false}>
            <Typography gutterBottom>
              Save these codes now: they are shown only once. Each works one time.
            </Typography>
            <Box
              component="ol"
              aria-label="Your new recovery codes"
              data-testid="recovery-codes"
              sx={{
                fontFamily: 'monospace',
                fontSize: '1rem',
                columns: 2,
                listStylePosition: 'inside',
                pl: 0,
                my: 1,
                userSelect: 'all',
              }}
            >
              {shown.map((code) => (
                <li key={code}>{formatRecoveryCode(code)}</li>
              ))}
            </Box>
            <Stack direction="row" spacing={1}>
              <Button onClick={() => void copy()}>{copied ? 'Copied' : 'Copy'}</Button>
              <Button onClick={download}>Download .txt</Button>
              <Button
                onClick={() => {
                  setShown(null);
                }}
              >
                I have saved them
              </Button>
            </Stack>
          </Alert>
        )}
        {body}
      </Stack>
      <Dialog
        open={confirming}
        onClose={() => {
          setConfirming(false);
        }}
      >
        <DialogTitle>Make new recovery codes?</DialogTitle>
        <DialogContent>
          <DialogContentText>
            Your current recovery codes will stop working at once.
          </DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button
            onClick={() => {
              setConfirming(false);
            }}
          >
            Keep
          </Button>
          <Button color="warning" onClick={() => void make()}>
            Make new codes
          </Button>
        </DialogActions>
      </Dialog>
    </Paper>
  );
}

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
import { useState } from 'react';

import {
  accountErrorMessage,
  identityKey,
  useMakeRecoveryCodesMutation,
  useRecoveryCodesStatusQuery,
} from './api';
import { formatRecoveryCode, recoveryCodesText } from './recoveryCodes';

/**
 * Recovery codes (PRODUCT.md §1a): ten single-use codes that pass the second step of sign-in when the
 * authenticator app is not at hand. Made (or made anew, which retires the old ones) from a session that
 * passed its second factor, shown once with copy and download, then only how many are left.
 */
export function RecoveryCodesSection({ client }: { client: GoTrueClient }) {
  const key = identityKey(client);
  const status = useRecoveryCodesStatusQuery(key, { refetchOnMountOrArgChange: true });
  const [makeCodes] = useMakeRecoveryCodesMutation();
  const [shown, setShown] = useState<string[] | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);

  const make = async () => {
    setConfirming(false);
    setBusy(true);
    setError(null);
    setCopied(false);
    const result = await makeCodes({ key, anew: status.data?.kind === 'set' });
    setBusy(false);
    if (result.error) {
      setError(accountErrorMessage(result.error));
      return;
    }
    setShown(result.data.codes);
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
  if (status.isError) {
    body = (
      <Alert
        severity="error"
        action={
          <Button color="inherit" onClick={() => void status.refetch()}>
            Retry
          </Button>
        }
      >
        {accountErrorMessage(status.error, 'Could not read your recovery codes.')}
      </Alert>
    );
  } else if (!status.data) {
    body = <Skeleton variant="rounded" height={56} aria-label="Loading your recovery codes" />;
  } else if (status.data.kind === 'none') {
    body = status.data.canMake ? (
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
          {status.data.remaining} of {status.data.total} codes unused.
          {status.data.remaining <= 3 && ' Make new ones before you run out.'}
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

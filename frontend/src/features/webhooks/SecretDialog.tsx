import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState } from 'react';

/** The signing secret of an endpoint, shown this once (after adding it, or rotating its secret). */
export function SecretDialog({
  secret,
  rotated,
  onClose,
}: {
  secret: string | null;
  rotated: boolean;
  onClose: () => void;
}) {
  const [copied, setCopied] = useState(false);
  return (
    <Dialog open={secret !== null} onClose={onClose} fullWidth maxWidth="sm">
      <DialogTitle>Signing secret</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <Alert severity="warning">
            Copy it now: it is not shown again.
            {rotated && ' The previous secret keeps signing deliveries for 24 hours.'}
          </Alert>
          <TextField
            label="Secret"
            value={secret ?? ''}
            slotProps={{ htmlInput: { readOnly: true, 'data-testid': 'webhook-secret' } }}
            fullWidth
          />
          <Typography variant="body2" color="text.secondary">
            Verify each delivery’s <code>webhook-signature</code> with it, for example with the{' '}
            <code>standardwebhooks</code> library.
          </Typography>
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button
          onClick={() => {
            void navigator.clipboard.writeText(secret ?? '').then(() => {
              setCopied(true);
            });
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </Button>
        <Button variant="contained" onClick={onClose}>
          Done
        </Button>
      </DialogActions>
    </Dialog>
  );
}

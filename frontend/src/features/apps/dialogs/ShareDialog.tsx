import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import IconButton from '@mui/material/IconButton';
import InputAdornment from '@mui/material/InputAdornment';
import Stack from '@mui/material/Stack';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import CancelIcon from '@mui/icons-material/Cancel';
import CheckIcon from '@mui/icons-material/Check';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { useState } from 'react';

import { InstallQrCode } from '../../../components/InstallQrCode';
import { OutlinedField } from '../../../components/OutlinedField';
import {
  useGetShareLinkQuery,
  useResetShareLinkMutation,
  useShareWithTestersMutation,
} from '../api';
import type { App } from '../types';
import { addTester, INVALID_TESTER_EMAIL, isTesterEmail } from './testerEmails';
import { useCopyToClipboard } from '../../../components/useCopyToClipboard';

export interface ShareDialogProps {
  open: boolean;
  onClose: () => void;
  orgId: string;
  app: Pick<App, 'packageName' | 'name' | 'sharedWithEmails'>;
}

/**
 * Share with Testers (spec §2): the install link, a tester list kept with the app, the note that nobody is
 * e-mailed, and a reset of the link (the old one stops working at once).
 */
export function ShareDialog(props: ShareDialogProps) {
  return props.open ? <ShareDialogBody {...props} /> : null;
}

function ShareDialogBody({ onClose, orgId, app }: ShareDialogProps) {
  const ref = { orgId, packageName: app.packageName };
  const link = useGetShareLinkQuery(ref);
  const [save, saving] = useShareWithTestersMutation();
  const [reset, resetting] = useResetShareLinkMutation();
  const { copied, failed: copyFailed, copy } = useCopyToClipboard();

  const [testers, setTesters] = useState<string[]>(() => [...app.sharedWithEmails]);
  const [email, setEmail] = useState('');
  const [touched, setTouched] = useState(false);
  const [dirty, setDirty] = useState(false);
  const [note, setNote] = useState<{ severity: 'success' | 'error'; text: string } | null>(null);
  const [confirmingReset, setConfirmingReset] = useState(false);
  const [resetUrl, setResetUrl] = useState<string | null>(null);

  const installUrl = resetUrl ?? link.data?.installUrl ?? '';
  const valid = isTesterEmail(email);
  const showInvalid = touched && email.trim() !== '' && !valid;

  const add = () => {
    setTouched(true);
    if (!valid) return;
    setTesters((list) => addTester(list, email));
    setEmail('');
    setTouched(false);
    setDirty(true);
    setNote(null);
  };

  const saveTesters = async () => {
    setNote(null);
    try {
      const saved = await save({ ...ref, emails: testers }).unwrap();
      setTesters(saved.sharedWithEmails);
      setDirty(false);
      setNote({ severity: 'success', text: 'Tester list saved' });
    } catch {
      setNote({ severity: 'error', text: 'Failed to save the tester list. Please try again.' });
    }
  };

  const confirmReset = async () => {
    setNote(null);
    try {
      const fresh = await reset(ref).unwrap();
      setResetUrl(fresh.installUrl);
      setConfirmingReset(false);
      setNote({ severity: 'success', text: 'A new link was made. The old link no longer works.' });
    } catch {
      setNote({ severity: 'error', text: 'Failed to generate sharing link' });
    }
  };

  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="sm" aria-labelledby="share-title">
      <DialogTitle id="share-title">Share {app.name} with Testers</DialogTitle>
      <DialogContent>
        <Stack spacing={2.5} sx={{ pt: 1 }}>
          {link.isLoading ? (
            <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }} role="status">
              <CircularProgress size={20} />
              <Typography>Generating link...</Typography>
            </Stack>
          ) : link.isError && !resetUrl ? (
            <Alert
              severity="error"
              action={
                <Button color="inherit" size="small" onClick={() => void link.refetch()}>
                  Try Again
                </Button>
              }
            >
              Failed to generate sharing link
            </Alert>
          ) : (
            <OutlinedField
              label="Install link"
              value={installUrl}
              fullWidth
              helperText="Anyone with this link gets read-only testing access to the app."
              readOnly
              inputProps={{ 'data-testid': 'install-url' }}
              endAdornment={
                <InputAdornment position="end">
                  <Tooltip title={copied ? 'Copied!' : 'Copy link'}>
                    <IconButton
                      aria-label={copied ? 'Link copied' : 'Copy link'}
                      onClick={() => void copy(installUrl)}
                      edge="end"
                    >
                      {copied ? <CheckIcon color="success" /> : <ContentCopyIcon />}
                    </IconButton>
                  </Tooltip>
                </InputAdornment>
              }
              onFocus={(event) => {
                event.target.select();
              }}
            />
          )}
          {!link.isLoading && installUrl && (
            <InstallQrCode
              url={installUrl}
              caption="Testers can scan this code with their phone to open the install link."
            />
          )}
          {copyFailed && !copied && (
            <Alert severity="info">
              Your browser did not allow copying. Select the link and copy it yourself.
            </Alert>
          )}
          <Alert severity="info">
            The system does not send emails automatically. Share the link with your testers
            yourself, for example by email or chat.
          </Alert>

          <Stack spacing={1}>
            <Typography variant="subtitle2" component="h3">
              Testers
            </Typography>
            <Stack direction="row" spacing={1} sx={{ alignItems: 'flex-start' }}>
              <OutlinedField
                label="Tester email"
                type="email"
                size="small"
                fullWidth
                value={email}
                onChange={(event) => {
                  setEmail(event.target.value);
                }}
                onBlur={() => {
                  setTouched(true);
                }}
                onKeyDown={(event) => {
                  if (event.key === 'Enter') {
                    event.preventDefault();
                    add();
                  }
                }}
                error={showInvalid}
                helperText={showInvalid ? INVALID_TESTER_EMAIL : ' '}
              />
              <Button variant="outlined" onClick={add} disabled={!valid}>
                Add
              </Button>
            </Stack>
            {testers.length === 0 ? (
              <Typography color="text.secondary">No testers added yet.</Typography>
            ) : (
              <Stack
                direction="row"
                component="ul"
                aria-label="Testers"
                sx={{ flexWrap: 'wrap', gap: 1, listStyle: 'none', p: 0, m: 0 }}
              >
                {testers.map((tester) => (
                  <li key={tester}>
                    <Chip
                      label={tester}
                      onDelete={() => {
                        setTesters((list) => list.filter((item) => item !== tester));
                        setDirty(true);
                        setNote(null);
                      }}
                      deleteIcon={<CancelIcon titleAccess={`Remove ${tester}`} />}
                    />
                  </li>
                ))}
              </Stack>
            )}
          </Stack>

          {note && (
            <Alert severity={note.severity} role={note.severity === 'error' ? 'alert' : 'status'}>
              {note.text}
            </Alert>
          )}

          {confirmingReset ? (
            <Alert
              severity="warning"
              action={
                <Stack direction="row" spacing={1}>
                  <Button
                    color="inherit"
                    size="small"
                    onClick={() => {
                      setConfirmingReset(false);
                    }}
                    disabled={resetting.isLoading}
                  >
                    Cancel
                  </Button>
                  <Button
                    color="inherit"
                    size="small"
                    variant="outlined"
                    onClick={() => void confirmReset()}
                    disabled={resetting.isLoading}
                  >
                    {resetting.isLoading ? 'Resetting...' : 'Reset Link'}
                  </Button>
                </Stack>
              }
            >
              Reset the link? The current link stops working at once; testers need the new one.
            </Alert>
          ) : null}
        </Stack>
      </DialogContent>
      <DialogActions>
        {!confirmingReset && (
          <Button
            color="error"
            onClick={() => {
              setNote(null);
              setConfirmingReset(true);
            }}
            sx={{ mr: 'auto' }}
          >
            Reset Link
          </Button>
        )}
        <Button onClick={onClose}>Close</Button>
        <Button
          variant="contained"
          onClick={() => void saveTesters()}
          disabled={!dirty || saving.isLoading}
        >
          {saving.isLoading ? 'Saving...' : 'Save Testers'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';

import { errorMessage } from '../../../api/errors';
import { paths } from '../../../config/paths';
import { useCreateOrgMutation, type Organization } from '../../orgs';
import { useMoveAppMutation } from '../api';
import { MOVE_REDIRECT_MS, MOVED } from './editApp';

export const MOVE_FAILED = 'Failed to move app to the new organization. Please try again.';
export const NO_TARGET = 'Please select a target organization';

interface Props {
  open: boolean;
  onClose: () => void;
  orgId: string;
  packageName: string;
  appName: string;
  /** The user's organizations (the dialog offers the others). */
  orgs: Organization[];
  /** Told once the app has moved (the page stops reading it from its old organization). */
  onMoved?: () => void;
}

/**
 * Move an app to another organization (spec §2): the user's other organizations (admin or member), the four
 * warnings, then a success note and /apps after 1.5 s. An organization can be created from here.
 */
export function MoveAppDialog(props: Props) {
  return props.open ? <MoveAppDialogBody {...props} /> : null;
}

function MoveAppDialogBody({ onClose, orgId, packageName, appName, orgs, onMoved }: Props) {
  const navigate = useNavigate();
  const [move, { isLoading }] = useMoveAppMutation();
  const [target, setTarget] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [moved, setMoved] = useState(false);
  const [creating, setCreating] = useState(false);
  const targets = orgs.filter((org) => org.id !== orgId);

  useEffect(() => {
    if (!moved) return undefined;
    const timer = setTimeout(() => {
      void navigate(paths.apps);
    }, MOVE_REDIRECT_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [moved, navigate]);

  const confirm = async () => {
    if (!target) {
      setProblem(NO_TARGET);
      return;
    }
    setProblem(null);
    try {
      await move({ orgId, packageName, targetOrgId: target }).unwrap();
      setMoved(true);
      onMoved?.();
    } catch {
      setProblem(MOVE_FAILED);
    }
  };

  return (
    <>
      <Dialog open onClose={isLoading || moved ? undefined : onClose} maxWidth="sm" fullWidth>
        <DialogTitle>Move {appName} to Another Organization</DialogTitle>
        <DialogContent>
          <Stack spacing={2}>
            {moved ? (
              <Alert severity="success">{MOVED}</Alert>
            ) : (
              <>
                <DialogContentText>
                  Choose an organization where you have admin access. The app moves there with its
                  API key and status.
                </DialogContentText>
                <Alert severity="warning" component="div">
                  <Typography variant="body2" component="ul" sx={{ m: 0, pl: 2 }}>
                    <li>The app and all its settings will move to the selected organization.</li>
                    <li>Members of the target organization will gain access to this app.</li>
                    <li>
                      Members of the current organization will lose access unless they are also in
                      the target organization.
                    </li>
                    <li>This action cannot be automatically reversed.</li>
                  </Typography>
                </Alert>
                {targets.length === 0 ? (
                  <Typography color="text.secondary">
                    You are not a member of any other organization.
                  </Typography>
                ) : (
                  <TextField
                    select
                    label="Target organization"
                    value={target}
                    onChange={(e) => {
                      setTarget(e.target.value);
                      setProblem(null);
                    }}
                    error={problem === NO_TARGET}
                    disabled={isLoading}
                  >
                    {targets.map((org) => (
                      <MenuItem key={org.id} value={org.id}>
                        {org.name} ({org.role})
                      </MenuItem>
                    ))}
                  </TextField>
                )}
                {problem && (
                  <Alert severity="error" role="alert">
                    {problem}
                  </Alert>
                )}
              </>
            )}
          </Stack>
        </DialogContent>
        {!moved && (
          <DialogActions>
            <Button
              onClick={() => {
                setCreating(true);
              }}
              disabled={isLoading}
              sx={{ mr: 'auto' }}
            >
              Create New Organization
            </Button>
            <Button onClick={onClose} disabled={isLoading}>
              Cancel
            </Button>
            <Button
              variant="contained"
              color="error"
              onClick={() => void confirm()}
              disabled={isLoading}
              startIcon={isLoading ? <CircularProgress size={16} color="inherit" /> : undefined}
            >
              {isLoading ? 'Moving...' : 'Move App'}
            </Button>
          </DialogActions>
        )}
      </Dialog>
      {creating && (
        <CreateOrgDialog
          onClose={(createdId) => {
            setCreating(false);
            if (createdId) {
              setTarget(createdId);
              setProblem(null);
            }
          }}
        />
      )}
    </>
  );
}

/** A new organization to move the app to; it becomes the chosen target. */
function CreateOrgDialog({ onClose }: { onClose: (createdId?: string) => void }) {
  const [create, { isLoading }] = useCreateOrgMutation();
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async () => {
    if (!name.trim()) {
      setError('Organization name is required');
      return;
    }
    try {
      const org = await create({ name: name.trim() }).unwrap();
      onClose(org.id);
    } catch (failure) {
      setError(errorMessage(failure, 'Failed to create organization'));
    }
  };
  return (
    <Dialog
      open
      onClose={() => {
        onClose();
      }}
      maxWidth="xs"
      fullWidth
    >
      <DialogTitle>Create New Organization</DialogTitle>
      <DialogContent>
        <TextField
          autoFocus
          fullWidth
          margin="dense"
          label="Organization name"
          required
          value={name}
          onChange={(e) => {
            setName(e.target.value);
            setError(null);
          }}
          error={Boolean(error)}
          helperText={error ?? 'You become its admin.'}
          disabled={isLoading}
        />
      </DialogContent>
      <DialogActions>
        <Button
          onClick={() => {
            onClose();
          }}
          disabled={isLoading}
        >
          Cancel
        </Button>
        <Button variant="contained" onClick={() => void submit()} disabled={isLoading}>
          Create
        </Button>
      </DialogActions>
    </Dialog>
  );
}

import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import { useState, type SyntheticEvent } from 'react';

import { errorMessage } from '../../api/errors';
import { useAppDispatch } from '../../app/store';
import { OutlinedField } from '../../components/OutlinedField';
import { nameConfirmed } from '../../components/nameConfirmed';
import { TypeToConfirm } from '../../components/TypeToConfirm';
import { noticeShown } from '../../session/authSlice';
import { useCreateOrgMutation, useDeleteOrgMutation } from './api';
import { orgSelected } from '../../session/orgSlice';
import type { Organization } from './types';
import { validateOrgForm, type OrgFormErrors } from './validation';

// The Organization Settings page's dialogs, loaded when one is first opened.

/**
 * Deleting the organization, once its name is typed (issue 25, item 15); never while it owns apps
 * (`ownsApps`, as far as the page knows: the server's 409 says it otherwise).
 */
export function DeleteOrganizationDialog({
  open,
  org,
  ownsApps = false,
  onClose,
  onDeleted,
}: {
  open: boolean;
  org: Organization;
  ownsApps?: boolean;
  onClose: () => void;
  onDeleted: () => void;
}) {
  const [failure, setFailure] = useState<string | null>(null);
  const [typed, setTyped] = useState('');
  const [remove, { isLoading }] = useDeleteOrgMutation();
  const dispatch = useAppDispatch();

  // Opened again, it starts without the last failure and with the name to type again.
  const close = () => {
    setFailure(null);
    setTyped('');
    onClose();
  };

  const confirm = async () => {
    setFailure(null);
    try {
      await remove(org.id).unwrap();
      close();
      dispatch(noticeShown({ severity: 'success', text: 'Organization deleted successfully' }));
      onDeleted();
    } catch (error) {
      setFailure(errorMessage(error, 'Failed to delete organization.'));
    }
  };

  return (
    <Dialog open={open} onClose={close} aria-labelledby="delete-org-title">
      <DialogTitle id="delete-org-title">Delete {org.name}?</DialogTitle>
      <DialogContent>
        <DialogContentText>
          This cannot be undone. Members lose access to the organization.
        </DialogContentText>
        {ownsApps && (
          <Alert severity="info" sx={{ mt: 2 }}>
            {org.name} still owns apps: move or delete them first.
          </Alert>
        )}
        <TypeToConfirm
          name={org.name}
          value={typed}
          onChange={setTyped}
          disabled={isLoading || ownsApps}
        />
        {failure && (
          <Alert severity="error" sx={{ mt: 2 }}>
            {failure}
          </Alert>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={close}>Cancel</Button>
        <Button
          color="error"
          onClick={() => void confirm()}
          disabled={isLoading || ownsApps || !nameConfirmed(typed, org.name)}
        >
          {isLoading ? 'Deleting...' : 'Delete'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** Creating an organization: its name and contact e-mail. */
export function NewOrganizationDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [name, setName] = useState('');
  const [contactEmail, setContactEmail] = useState('');
  const [errors, setErrors] = useState<OrgFormErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [create, { isLoading }] = useCreateOrgMutation();
  const dispatch = useAppDispatch();

  const close = () => {
    setName('');
    setContactEmail('');
    setErrors({});
    setFailure(null);
    onClose();
  };

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    setFailure(null);
    const found = validateOrgForm({ name, contactEmail, website: '', description: '', logo: '' });
    setErrors(found);
    if (found.name || found.contactEmail) return;
    try {
      const org = await create({ name: name.trim(), contactEmail: contactEmail.trim() }).unwrap();
      dispatch(orgSelected(org.id));
      dispatch(noticeShown({ severity: 'success', text: 'Organization created successfully' }));
      close();
    } catch (error) {
      setFailure(errorMessage(error, 'Failed to create organization'));
    }
  };

  return (
    <Dialog open={open} onClose={close} fullWidth maxWidth="xs">
      <form onSubmit={(event) => void submit(event)} noValidate>
        <DialogTitle>New Organization</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            {failure && <Alert severity="error">{failure}</Alert>}
            <OutlinedField
              label="Organization name"
              required
              autoFocus
              value={name}
              onChange={(event) => {
                setName(event.target.value);
              }}
              error={Boolean(errors.name)}
              helperText={errors.name}
            />
            <OutlinedField
              label="Contact email"
              type="email"
              required
              value={contactEmail}
              onChange={(event) => {
                setContactEmail(event.target.value);
              }}
              error={Boolean(errors.contactEmail)}
              helperText={errors.contactEmail}
            />
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={close}>Cancel</Button>
          <Button type="submit" variant="contained" disabled={isLoading}>
            {isLoading ? 'Creating...' : 'Create'}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}

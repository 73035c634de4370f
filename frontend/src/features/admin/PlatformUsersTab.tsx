import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { secondaryColumn } from '../../components/secondaryColumn';
import { useState, type SyntheticEvent } from 'react';

import { errorMessage, isApiErrorBody, isFetchBaseQueryError } from '../../api/errors';
import { useAppDispatch, useAppSelector } from '../../app/store';
import { noticeShown, selectAuthUser } from '../../session/authSlice';
import { SIMPLE_EMAIL } from '../orgs';
import { useAddAdminUserMutation, useListAdminUsersQuery, useRemoveAdminUserMutation } from './api';
import { usDate } from './format';
import { Loading } from '../../components/Loading';
import { LoadError } from './states';
import type { AdminUser, PlatformRole } from './types';

const ROLE_LABEL: Record<PlatformRole, string> = { admin: 'Admin', reviewer: 'Reviewer' };

function AddUserForm() {
  const dispatch = useAppDispatch();
  const [add, adding] = useAddAdminUserMutation();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<PlatformRole>('reviewer');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  const onSubmit = async (event: SyntheticEvent) => {
    event.preventDefault();
    setFailure(null);
    const address = email.trim();
    if (!SIMPLE_EMAIL.test(address)) {
      setFieldError('Please enter a valid email address');
      return;
    }
    setFieldError(null);
    try {
      const added = await add({ email: address, role }).unwrap();
      setEmail('');
      dispatch(
        noticeShown({
          severity: 'success',
          text: `${added.email} is now a platform ${ROLE_LABEL[added.role].toLowerCase()}`,
        }),
      );
    } catch (error) {
      const fields =
        isFetchBaseQueryError(error) && isApiErrorBody(error.data) ? error.data.fields : undefined;
      if (fields?.email) setFieldError(fields.email);
      setFailure(errorMessage(error, 'Failed to add the platform user. Please try again.'));
    }
  };

  return (
    <Card variant="outlined" component="section" aria-labelledby="add-platform-user">
      <CardContent>
        <Typography id="add-platform-user" variant="h6" component="h2" sx={{ mb: 2 }}>
          Add Platform User
        </Typography>
        <Stack component="form" noValidate onSubmit={(e) => void onSubmit(e)} spacing={2}>
          {failure && <Alert severity="error">{failure}</Alert>}
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            <TextField
              label="Email"
              type="email"
              autoComplete="off"
              value={email}
              onChange={(event) => {
                setEmail(event.target.value);
                setFieldError(null);
              }}
              error={fieldError !== null}
              helperText={fieldError ?? ' '}
              required
              sx={{ flex: 1 }}
            />
            <TextField
              select
              label="Role"
              value={role}
              onChange={(event) => {
                setRole(event.target.value as PlatformRole);
              }}
              helperText={role === 'admin' ? 'Reviews and manages platform users' : 'Reviews apps'}
              sx={{ minWidth: 180 }}
            >
              <MenuItem value="reviewer">Reviewer</MenuItem>
              <MenuItem value="admin">Admin</MenuItem>
            </TextField>
          </Stack>
          <div>
            <Button type="submit" variant="contained" disabled={adding.isLoading}>
              {adding.isLoading ? 'Adding...' : 'Add User'}
            </Button>
          </div>
        </Stack>
      </CardContent>
    </Card>
  );
}

/** The Platform Users tab (admins only; PRODUCT.md §5): who may review, and who may manage them. */
export function PlatformUsersTab() {
  const dispatch = useAppDispatch();
  const me = useAppSelector(selectAuthUser);
  const users = useListAdminUsersQuery();
  const [remove, removing] = useRemoveAdminUserMutation();
  const [confirming, setConfirming] = useState<AdminUser | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  const onRemove = async () => {
    if (!confirming) return;
    try {
      await remove(confirming.email).unwrap();
      dispatch(noticeShown({ severity: 'success', text: `${confirming.email} was removed` }));
      setConfirming(null);
    } catch (error) {
      setFailure(errorMessage(error, 'Failed to remove the platform user. Please try again.'));
    }
  };

  let list;
  if (users.isLoading) list = <Loading label="Loading platform users..." />;
  else if (!users.data) {
    list = (
      <LoadError
        text="Failed to load the platform users. Please try again."
        onRetry={() => void users.refetch()}
      />
    );
  } else if (users.data.length === 0) {
    list = <Typography color="text.secondary">No platform users</Typography>;
  } else {
    list = (
      <TableContainer component={Card} variant="outlined">
        <Table aria-label="Platform users">
          <TableHead>
            <TableRow>
              <TableCell>Email</TableCell>
              <TableCell>Role</TableCell>
              <TableCell sx={secondaryColumn}>Added</TableCell>
              <TableCell align="right">Actions</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {users.data.map((user) => (
              <TableRow key={user.email}>
                <TableCell sx={{ overflowWrap: 'anywhere' }}>
                  {user.email}
                  {user.email.toLowerCase() === me?.email.toLowerCase() && ' (you)'}
                  {user.pending && (
                    <Chip
                      size="small"
                      variant="outlined"
                      label="Not signed in yet"
                      sx={{ ml: 1 }}
                    />
                  )}
                </TableCell>
                <TableCell>{ROLE_LABEL[user.role]}</TableCell>
                <TableCell sx={secondaryColumn}>
                  {usDate(user.addedAt)}
                  {user.addedBy && (
                    <Typography variant="body2" color="text.secondary">
                      by {user.addedBy}
                    </Typography>
                  )}
                </TableCell>
                <TableCell align="right">
                  <Button
                    color="error"
                    size="small"
                    onClick={() => {
                      setFailure(null);
                      setConfirming(user);
                    }}
                    aria-label={`Remove ${user.email}`}
                  >
                    Remove
                  </Button>
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </TableContainer>
    );
  }

  return (
    <Stack spacing={3}>
      {list}
      <AddUserForm />
      <Dialog
        open={confirming !== null}
        onClose={
          removing.isLoading
            ? undefined
            : () => {
                setConfirming(null);
              }
        }
        aria-labelledby="remove-platform-user-title"
        aria-describedby="remove-platform-user-text"
      >
        <DialogTitle id="remove-platform-user-title">Remove platform user</DialogTitle>
        <DialogContent>
          <Stack spacing={2}>
            {failure && <Alert severity="error">{failure}</Alert>}
            <DialogContentText id="remove-platform-user-text">
              Remove the platform {confirming ? ROLE_LABEL[confirming.role].toLowerCase() : ''} role
              of {confirming?.email}? They will no longer be able to open the Admin Panel.
            </DialogContentText>
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button
            onClick={() => {
              setConfirming(null);
            }}
            disabled={removing.isLoading}
          >
            Cancel
          </Button>
          <Button
            color="error"
            variant="contained"
            onClick={() => void onRemove()}
            disabled={removing.isLoading}
          >
            {removing.isLoading ? 'Removing...' : 'Remove'}
          </Button>
        </DialogActions>
      </Dialog>
    </Stack>
  );
}

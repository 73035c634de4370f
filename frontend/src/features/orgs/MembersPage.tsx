import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import FormHelperText from '@mui/material/FormHelperText';
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
import AdminPanelSettingsIcon from '@mui/icons-material/AdminPanelSettings';
import PersonIcon from '@mui/icons-material/Person';
import { lazy, Suspense, useEffect, useState, type SyntheticEvent } from 'react';

import { errorMessage } from '../../api/errors';
import { DialogLoading } from '../../components/DialogLoading';
import { useAppDispatch, useAppSelector } from '../../app/store';
import { noticeShown, selectAuthUser } from '../../session/authSlice';
import {
  useChangeRoleMutation,
  useGetOrgQuery,
  useInviteMemberMutation,
  useRemoveMemberMutation,
  useResendInviteMutation,
  useRescindInviteMutation,
} from './api';
import type { Pending } from './MemberConfirmDialog';
import type { OrgMember, OrgRole, Organization, PendingInvite } from './types';
import { ONLY_ADMIN_HINT, usDate } from './format';
import { useCurrentOrg } from './useCurrentOrg';
import { useDocumentTitle } from '../../components/useDocumentTitle';

/** How long the invitation confirmation stays (spec §2: 3 seconds). */
const INVITED_BANNER_MS = 3000;

const roleLabel = (role: OrgRole) => (role === 'admin' ? 'Admin' : 'Member');

function RoleIcon({ role }: { role: OrgRole }) {
  return role === 'admin' ? (
    <AdminPanelSettingsIcon fontSize="small" color="primary" titleAccess="Admin" />
  ) : (
    <PersonIcon fontSize="small" color="action" titleAccess="Member" />
  );
}

/** Whether the member's account has a verified second factor (admins see it, PRODUCT.md §1a). */
/** Whether a member has a second factor; `named` says "Two-factor" in the chip (a phone has no column header). */
function TwoFactorChip({ member, named = false }: { member: OrgMember; named?: boolean }) {
  return member.hasTwoFactor ? (
    <Chip
      size="small"
      color="success"
      variant="outlined"
      label={named ? 'Two-factor on' : 'On'}
      aria-label={`Two-factor authentication on for ${member.user.email}`}
    />
  ) : (
    <Chip
      size="small"
      variant="outlined"
      label={named ? 'Two-factor off' : 'Off'}
      aria-label={`Two-factor authentication off for ${member.user.email}`}
    />
  );
}

/** `/members` (spec §2): the members table, pending invitations and the invite form. */
export function MembersPage() {
  useDocumentTitle('Members');
  const { current, isAdmin, isLoading: orgsLoading, isError: orgsFailed } = useCurrentOrg();
  const details = useGetOrgQuery(current?.id ?? '', { skip: !current });
  const org = details.data ?? current;

  const subtitle = `Manage members of the organization${isAdmin ? '' : ' (read-only view)'}`;
  let body;
  if (orgsLoading || (current && details.isLoading)) {
    body = (
      <Typography role="status" color="text.secondary">
        Loading members...
      </Typography>
    );
  } else if (orgsFailed || details.isError) {
    body = <Alert severity="error">Failed to load members</Alert>;
  } else if (!org) {
    body = (
      <Alert severity="info">
        You don&apos;t have an active organization. Please create or join an organization first.
      </Alert>
    );
  } else {
    body = (
      <>
        <MembersTable org={org} isAdmin={isAdmin} />
        {isAdmin && <InviteForm org={org} />}
      </>
    );
  }

  return (
    <Stack spacing={3}>
      <div>
        <Typography variant="h4" component="h1" sx={{ fontWeight: 700 }}>
          Organization Members
        </Typography>
        {org && <Typography color="text.secondary">{subtitle}</Typography>}
      </div>
      {body}
    </Stack>
  );
}

// The confirmation loads when it is first asked for.
const ConfirmDialog = lazy(async () => ({
  default: (await import('./MemberConfirmDialog')).MemberConfirmDialog,
}));

function MembersTable({ org, isAdmin }: { org: Organization; isAdmin: boolean }) {
  const dispatch = useAppDispatch();
  const user = useAppSelector(selectAuthUser);
  // A phone has no Two-factor column (issue 25, item 8): the chip goes under the address instead.
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'));
  const [confirming, setConfirming] = useState<Pending>(null);
  // Once asked for, the confirmation stays mounted (it fades out when it closes).
  const [confirmShown, setConfirmShown] = useState(false);
  const ask = (pending: NonNullable<Pending>) => {
    setConfirming(pending);
    setConfirmShown(true);
  };
  const closeConfirm = () => {
    setConfirming(null);
  };
  const [changeRole] = useChangeRoleMutation();
  const [removeMember, removal] = useRemoveMemberMutation();
  const [resend] = useResendInviteMutation();
  const [rescind, rescinding] = useRescindInviteMutation();
  const notify = (severity: 'success' | 'error', text: string) =>
    dispatch(noticeShown({ severity, text }));

  const isMe = (member: OrgMember) =>
    member.user.id === user?.id || member.user.email.toLowerCase() === user?.email.toLowerCase();
  const members = org.members ?? [];
  const invites = org.pendingInvites ?? [];
  const admins = members.filter((member) => member.role === 'admin').length;

  const onRole = async (member: OrgMember, role: OrgRole) => {
    try {
      await changeRole({ orgId: org.id, memberId: member.user.id, role }).unwrap();
      notify('success', 'Member role updated');
    } catch (error) {
      notify('error', errorMessage(error, 'Failed to update member role'));
    }
  };

  const onConfirm = async () => {
    if (!confirming) return;
    try {
      if (confirming.kind === 'cancel') {
        await rescind({ orgId: org.id, email: confirming.invite.email }).unwrap();
        notify('success', 'Invitation cancelled.');
      } else {
        await removeMember({
          orgId: org.id,
          memberId: confirming.member.user.id,
          leaving: confirming.kind === 'leave',
        }).unwrap();
        notify(
          'success',
          confirming.kind === 'leave'
            ? 'You have left the organization.'
            : 'Member removed from organization',
        );
      }
    } catch (error) {
      const fallback =
        confirming.kind === 'cancel'
          ? 'Failed to cancel invitation.'
          : confirming.kind === 'leave'
            ? 'Failed to leave organization.'
            : 'Failed to remove member';
      notify('error', errorMessage(error, fallback));
    }
    setConfirming(null);
  };

  const onResend = async (invite: PendingInvite) => {
    try {
      await resend({ orgId: org.id, email: invite.email }).unwrap();
      notify('success', `Invitation resent to ${invite.email}`);
    } catch (error) {
      notify('error', errorMessage(error, 'Failed to resend invitation.'));
    }
  };

  return (
    <>
      <TableContainer component={Card} variant="outlined">
        <Table aria-label="Members" size={phone ? 'small' : 'medium'}>
          <TableHead>
            <TableRow>
              <TableCell>Email</TableCell>
              <TableCell>Role</TableCell>
              {isAdmin && <TableCell sx={secondaryColumn}>Two-factor</TableCell>}
              <TableCell sx={secondaryColumn}>Joined</TableCell>
              {isAdmin && <TableCell align="right">Actions</TableCell>}
            </TableRow>
          </TableHead>
          <TableBody>
            {members.length === 0 && invites.length === 0 && (
              <TableRow>
                <TableCell colSpan={isAdmin ? 5 : 3}>No members found</TableCell>
              </TableRow>
            )}
            {members.map((member) => {
              const mine = isMe(member);
              const onlyAdmin = mine && member.role === 'admin' && admins <= 1;
              return (
                <TableRow key={member.user.id}>
                  <TableCell>
                    <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                      <RoleIcon role={member.role} />
                      <Box sx={{ minWidth: 0, overflowWrap: 'anywhere' }}>
                        {member.user.email}
                        {mine && ' (you)'}
                        {isAdmin && phone && (
                          <Box sx={{ mt: 0.5 }}>
                            <TwoFactorChip member={member} named />
                          </Box>
                        )}
                        {phone && onlyAdmin && (
                          // A phone's Actions column is too narrow for it: under the address instead.
                          <FormHelperText id="only-admin-hint">{ONLY_ADMIN_HINT}</FormHelperText>
                        )}
                      </Box>
                    </Stack>
                  </TableCell>
                  <TableCell>
                    {isAdmin && !mine ? (
                      <TextField
                        select
                        size="small"
                        value={member.role}
                        onChange={(event) => void onRole(member, event.target.value as OrgRole)}
                        slotProps={{ htmlInput: { 'aria-label': `Role of ${member.user.email}` } }}
                      >
                        <MenuItem value="admin">Admin</MenuItem>
                        <MenuItem value="member">Member</MenuItem>
                      </TextField>
                    ) : (
                      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                        <span>{roleLabel(member.role)}</span>
                        {mine && !isAdmin && (
                          <LeaveButton
                            hint={!phone}
                            disabled={onlyAdmin}
                            onClick={() => {
                              ask({ kind: 'leave', member });
                            }}
                          />
                        )}
                      </Stack>
                    )}
                  </TableCell>
                  {isAdmin && (
                    <TableCell sx={secondaryColumn}>
                      {!phone && <TwoFactorChip member={member} />}
                    </TableCell>
                  )}
                  <TableCell sx={secondaryColumn}>{usDate(member.joinedAt)}</TableCell>
                  {isAdmin && (
                    <TableCell align="right">
                      {mine ? (
                        <LeaveButton
                          hint={!phone}
                          disabled={onlyAdmin}
                          onClick={() => {
                            ask({ kind: 'leave', member });
                          }}
                        />
                      ) : (
                        <Button
                          color="error"
                          size="small"
                          onClick={() => {
                            ask({ kind: 'remove', member });
                          }}
                        >
                          Remove
                        </Button>
                      )}
                    </TableCell>
                  )}
                </TableRow>
              );
            })}
            {invites.map((invite) => {
              const { expired } = invite;
              return (
                <TableRow
                  key={`invite-${invite.email}`}
                  sx={{ bgcolor: 'action.hover', '& > td': { color: 'text.secondary' } }}
                >
                  <TableCell>
                    <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                      <RoleIcon role={invite.role} />
                      <span>
                        {invite.email} (pending)
                        {expired && (
                          <Typography
                            component="span"
                            color="error"
                            sx={{ ml: 1, fontWeight: 600 }}
                          >
                            Expired
                          </Typography>
                        )}
                      </span>
                    </Stack>
                  </TableCell>
                  <TableCell>{roleLabel(invite.role)}</TableCell>
                  {isAdmin && <TableCell aria-label="Not yet a member" />}
                  <TableCell sx={secondaryColumn}>
                    Invited {usDate(invite.invitedAt)}
                    {invite.emailSentCount > 1 && (
                      <Typography variant="body2" color="text.secondary">
                        Resent{' '}
                        {invite.emailSentCount === 2
                          ? 'once'
                          : `${invite.emailSentCount - 1} times`}
                      </Typography>
                    )}
                  </TableCell>
                  {isAdmin && (
                    <TableCell align="right">
                      {!expired && (
                        <Button size="small" onClick={() => void onResend(invite)}>
                          Resend
                        </Button>
                      )}
                      <Button
                        size="small"
                        color="error"
                        onClick={() => {
                          ask({ kind: 'cancel', invite });
                        }}
                      >
                        Cancel
                      </Button>
                    </TableCell>
                  )}
                </TableRow>
              );
            })}
          </TableBody>
        </Table>
      </TableContainer>
      {confirmShown && (
        <Suspense fallback={<DialogLoading onClose={closeConfirm} />}>
          <ConfirmDialog
            pending={confirming}
            busy={removal.isLoading || rescinding.isLoading}
            onClose={closeConfirm}
            onConfirm={() => void onConfirm()}
          />
        </Suspense>
      )}
    </>
  );
}

/** Leave; disabled for the only admin, with the reason under it (`hint`) or, on a phone, under the address. */
function LeaveButton({
  disabled,
  hint,
  onClick,
}: {
  disabled: boolean;
  hint: boolean;
  onClick: () => void;
}) {
  if (!disabled) {
    return (
      <Button size="small" color="warning" onClick={onClick}>
        Leave
      </Button>
    );
  }
  return (
    <Box sx={{ display: 'inline-flex', flexDirection: 'column', alignItems: 'flex-end' }}>
      {/* The reason shows under the button (a tooltip would only repeat it). */}
      <Button size="small" color="warning" disabled aria-describedby="only-admin-hint">
        Leave
      </Button>
      {hint && (
        <FormHelperText id="only-admin-hint" sx={{ maxWidth: 260, textAlign: 'right' }}>
          {ONLY_ADMIN_HINT}
        </FormHelperText>
      )}
    </Box>
  );
}

function InviteForm({ org }: { org: Organization }) {
  const dispatch = useAppDispatch();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<OrgRole>('member');
  const [invalid, setInvalid] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [sent, setSent] = useState(false);
  const [invite, { isLoading }] = useInviteMemberMutation();

  useEffect(() => {
    if (!sent) return;
    const timer = setTimeout(() => {
      setSent(false);
    }, INVITED_BANNER_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [sent]);

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    setFailure(null);
    const address = email.trim();
    if (!address.includes('@')) {
      setInvalid('Please enter a valid email address');
      return;
    }
    try {
      await invite({ orgId: org.id, email: address, role }).unwrap();
      setEmail('');
      setRole('member');
      setSent(true);
      dispatch(noticeShown({ severity: 'success', text: `Invitation sent to ${address}` }));
    } catch (error) {
      setFailure(errorMessage(error, 'Failed to send invitation. Please try again.'));
      dispatch(noticeShown({ severity: 'error', text: 'Failed to send invitation.' }));
    }
  };

  return (
    <Card variant="outlined" component="section" aria-labelledby="invite-title">
      <CardContent>
        <Stack component="form" spacing={2} onSubmit={(event) => void submit(event)} noValidate>
          <Typography id="invite-title" variant="h6" component="h2">
            Invite New Member
          </Typography>
          {sent && <Alert severity="success">Invitation sent successfully!</Alert>}
          {failure && <Alert severity="error">{failure}</Alert>}
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            <TextField
              label="Email Address"
              type="email"
              required
              placeholder="colleague@example.com"
              value={email}
              onChange={(event) => {
                setEmail(event.target.value);
                setInvalid(null);
              }}
              error={Boolean(invalid)}
              helperText={invalid}
              slotProps={{ inputLabel: { shrink: true } }}
              sx={{ flex: 1 }}
            />
            <TextField
              select
              label="Role"
              value={role}
              onChange={(event) => {
                setRole(event.target.value as OrgRole);
              }}
              sx={{ minWidth: 160 }}
            >
              <MenuItem value="member">Member</MenuItem>
              <MenuItem value="admin">Admin</MenuItem>
            </TextField>
          </Stack>
          <Typography variant="body2" color="text.secondary">
            {role === 'admin'
              ? 'Admin: full control, managing members and apps.'
              : 'Member: manages apps, but not the organization or its members.'}
          </Typography>
          <Box>
            <Button type="submit" variant="contained" disabled={isLoading}>
              {isLoading ? 'Sending...' : 'Send Invitation'}
            </Button>
          </Box>
        </Stack>
      </CardContent>
    </Card>
  );
}

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
import AdminPanelSettingsIcon from '@mui/icons-material/AdminPanelSettings';
import PersonIcon from '@mui/icons-material/Person';
import { lazy, Suspense, useEffect, useState, type SyntheticEvent } from 'react';

import { errorMessage } from '../../api/errors';
import { DialogLoading } from '../../components/DialogLoading';
import { EmailAddress } from '../../components/EmailAddress';
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

/**
 * Whether the member's account has a verified second factor (admins see it, PRODUCT.md §1a); `named` says
 * "Two-factor" in the chip (a card has no column header).
 */
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
        <MembersList org={org} isAdmin={isAdmin} />
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

/** Under this width (600 px) the members are a list of cards, as the audit log is: the table's columns do not fit. */
const cardsWidth = (theme: Theme) => theme.breakpoints.down('sm');

/** What the table's rows and the cards offer; the confirmation dialog is the list's. */
interface MemberActions {
  isAdmin: boolean;
  isMe: (member: OrgMember) => boolean;
  /** The signed-in user is this organization's only admin: Leave is disabled, with the reason under it. */
  isOnlyAdmin: (member: OrgMember) => boolean;
  onRole: (member: OrgMember, role: OrgRole) => void;
  ask: (pending: NonNullable<Pending>) => void;
  onResend: (invite: PendingInvite) => void;
}

/** The members and pending invitations: a table, or a list of cards below 600 px; their actions and confirmation. */
function MembersList({ org, isAdmin }: { org: Organization; isAdmin: boolean }) {
  const dispatch = useAppDispatch();
  const user = useAppSelector(selectAuthUser);
  const cards = useMediaQuery(cardsWidth);
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

  const members = org.members ?? [];
  const invites = org.pendingInvites ?? [];
  const admins = members.filter((member) => member.role === 'admin').length;
  const isMe = (member: OrgMember) =>
    member.user.id === user?.id || member.user.email.toLowerCase() === user?.email.toLowerCase();

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

  const actions: MemberActions = {
    isAdmin,
    isMe,
    isOnlyAdmin: (member) => isMe(member) && member.role === 'admin' && admins <= 1,
    onRole: (member, role) => void onRole(member, role),
    ask,
    onResend: (invite) => void onResend(invite),
  };

  return (
    <>
      {cards ? (
        <MemberCards members={members} invites={invites} actions={actions} />
      ) : (
        <MembersTable members={members} invites={invites} actions={actions} />
      )}
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

interface ListProps {
  members: OrgMember[];
  invites: PendingInvite[];
  actions: MemberActions;
}

/** An admin changes another member's role here. */
function RoleSelect({ member, actions }: { member: OrgMember; actions: MemberActions }) {
  return (
    <TextField
      select
      size="small"
      value={member.role}
      onChange={(event) => {
        actions.onRole(member, event.target.value as OrgRole);
      }}
      slotProps={{ htmlInput: { 'aria-label': `Role of ${member.user.email}` } }}
    >
      <MenuItem value="admin">Admin</MenuItem>
      <MenuItem value="member">Member</MenuItem>
    </TextField>
  );
}

/** Leave (the signed-in user) or Remove (another member, for an admin). */
function MemberButton({
  member,
  actions,
  align,
}: {
  member: OrgMember;
  actions: MemberActions;
  align: 'start' | 'end';
}) {
  if (actions.isMe(member)) {
    return (
      <LeaveButton
        align={align}
        disabled={actions.isOnlyAdmin(member)}
        onClick={() => {
          actions.ask({ kind: 'leave', member });
        }}
      />
    );
  }
  return (
    <Button
      color="error"
      size="small"
      onClick={() => {
        actions.ask({ kind: 'remove', member });
      }}
    >
      Remove
    </Button>
  );
}

function MembersTable({ members, invites, actions }: ListProps) {
  const { isAdmin } = actions;
  return (
    <TableContainer component={Card} variant="outlined">
      <Table aria-label="Members">
        <TableHead>
          <TableRow>
            <TableCell>Email</TableCell>
            <TableCell>Role</TableCell>
            {isAdmin && <TableCell>Two-factor</TableCell>}
            <TableCell>Joined</TableCell>
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
            const mine = actions.isMe(member);
            return (
              <TableRow key={member.user.id}>
                <TableCell>
                  <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                    <RoleIcon role={member.role} />
                    <Box sx={{ minWidth: 0, overflowWrap: 'anywhere' }}>
                      <EmailAddress address={member.user.email} />
                      {mine && ' (you)'}
                    </Box>
                  </Stack>
                </TableCell>
                <TableCell>
                  {isAdmin && !mine ? (
                    <RoleSelect member={member} actions={actions} />
                  ) : (
                    <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                      <span>{roleLabel(member.role)}</span>
                      {mine && !isAdmin && (
                        <MemberButton member={member} actions={actions} align="end" />
                      )}
                    </Stack>
                  )}
                </TableCell>
                {isAdmin && (
                  <TableCell>
                    <TwoFactorChip member={member} />
                  </TableCell>
                )}
                <TableCell>{usDate(member.joinedAt)}</TableCell>
                {isAdmin && (
                  <TableCell align="right">
                    <MemberButton member={member} actions={actions} align="end" />
                  </TableCell>
                )}
              </TableRow>
            );
          })}
          {invites.map((invite) => (
            <TableRow
              key={`invite-${invite.email}`}
              sx={{ bgcolor: 'action.hover', '& > td': { color: 'text.secondary' } }}
            >
              <TableCell>
                <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                  <RoleIcon role={invite.role} />
                  <Box component="span" sx={{ minWidth: 0, overflowWrap: 'anywhere' }}>
                    <EmailAddress address={invite.email} /> (pending)
                    {invite.expired && <ExpiredMark />}
                  </Box>
                </Stack>
              </TableCell>
              <TableCell>{roleLabel(invite.role)}</TableCell>
              {isAdmin && <TableCell aria-label="Not yet a member" />}
              <TableCell>
                Invited {usDate(invite.invitedAt)}
                <ResentCount invite={invite} />
              </TableCell>
              {isAdmin && (
                <TableCell align="right">
                  <InviteButtons invite={invite} actions={actions} />
                </TableCell>
              )}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

const WRAP = { minWidth: 0, overflowWrap: 'anywhere' } as const;

/**
 * The members at phone width (the audit log's pattern): one card per member (address, role, second factor,
 * joined, Leave or Remove) and per pending invitation (Resend, Cancel), every label in full.
 */
function MemberCards({ members, invites, actions }: ListProps) {
  const { isAdmin } = actions;
  if (members.length === 0 && invites.length === 0) {
    return (
      <Card variant="outlined" sx={{ p: 2 }}>
        <Typography color="text.secondary">No members found</Typography>
      </Card>
    );
  }
  return (
    <Stack component="ul" aria-label="Members" spacing={1.5} sx={{ listStyle: 'none', m: 0, p: 0 }}>
      {members.map((member) => {
        const mine = actions.isMe(member);
        return (
          <li key={member.user.id}>
            <Card variant="outlined">
              <Stack spacing={1.25} sx={{ p: 2 }}>
                <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                  <RoleIcon role={member.role} />
                  <Typography sx={{ fontWeight: 600, ...WRAP }}>
                    <EmailAddress address={member.user.email} />
                    {mine && ' (you)'}
                  </Typography>
                </Stack>
                <Stack
                  direction="row"
                  spacing={1}
                  useFlexGap
                  sx={{ alignItems: 'center', flexWrap: 'wrap' }}
                >
                  {isAdmin && !mine ? (
                    <RoleSelect member={member} actions={actions} />
                  ) : (
                    <Typography variant="body2">
                      <Box component="span" sx={{ color: 'text.secondary' }}>
                        Role:
                      </Box>{' '}
                      {roleLabel(member.role)}
                    </Typography>
                  )}
                  {isAdmin && <TwoFactorChip member={member} named />}
                </Stack>
                <Typography variant="body2" color="text.secondary">
                  Joined {usDate(member.joinedAt)}
                </Typography>
                {(isAdmin || mine) && (
                  <div>
                    <MemberButton member={member} actions={actions} align="start" />
                  </div>
                )}
              </Stack>
            </Card>
          </li>
        );
      })}
      {invites.map((invite) => (
        <li key={`invite-${invite.email}`}>
          <Card variant="outlined" sx={{ bgcolor: 'action.hover' }}>
            <Stack spacing={1.25} sx={{ p: 2 }}>
              <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                <RoleIcon role={invite.role} />
                <Typography sx={WRAP}>
                  <EmailAddress address={invite.email} /> (pending)
                  {invite.expired && <ExpiredMark />}
                </Typography>
              </Stack>
              <Typography variant="body2">
                <Box component="span" sx={{ color: 'text.secondary' }}>
                  Role:
                </Box>{' '}
                {roleLabel(invite.role)}
              </Typography>
              <Typography variant="body2" color="text.secondary" component="div">
                Invited {usDate(invite.invitedAt)}
                <ResentCount invite={invite} />
              </Typography>
              {isAdmin && (
                <div>
                  <InviteButtons invite={invite} actions={actions} />
                </div>
              )}
            </Stack>
          </Card>
        </li>
      ))}
    </Stack>
  );
}

function ExpiredMark() {
  return (
    <Typography component="span" color="error" sx={{ ml: 1, fontWeight: 600 }}>
      Expired
    </Typography>
  );
}

/** How often an invitation was sent again, when it was. */
function ResentCount({ invite }: { invite: PendingInvite }) {
  if (invite.emailSentCount <= 1) return null;
  return (
    <Typography variant="body2" color="text.secondary">
      Resent {invite.emailSentCount === 2 ? 'once' : `${invite.emailSentCount - 1} times`}
    </Typography>
  );
}

/** Resend (while the invitation is valid) and Cancel. */
function InviteButtons({ invite, actions }: { invite: PendingInvite; actions: MemberActions }) {
  return (
    <>
      {!invite.expired && (
        <Button
          size="small"
          onClick={() => {
            actions.onResend(invite);
          }}
        >
          Resend
        </Button>
      )}
      <Button
        size="small"
        color="error"
        onClick={() => {
          actions.ask({ kind: 'cancel', invite });
        }}
      >
        Cancel
      </Button>
    </>
  );
}

/** Leave; disabled for the only admin, with the reason under it (aligned with the button: `align`). */
function LeaveButton({
  disabled,
  align,
  onClick,
}: {
  disabled: boolean;
  align: 'start' | 'end';
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
    <Box
      sx={{
        display: 'inline-flex',
        flexDirection: 'column',
        alignItems: align === 'end' ? 'flex-end' : 'flex-start',
      }}
    >
      {/* The reason shows under the button (a tooltip would only repeat it). */}
      <Button size="small" color="warning" disabled aria-describedby="only-admin-hint">
        Leave
      </Button>
      <FormHelperText
        id="only-admin-hint"
        sx={{ maxWidth: 260, textAlign: align === 'end' ? 'right' : 'left', mx: 0 }}
      >
        {ONLY_ADMIN_HINT}
      </FormHelperText>
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

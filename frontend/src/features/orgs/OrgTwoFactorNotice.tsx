import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useState, type ReactNode } from 'react';
import { Link as RouterLink, useLocation, useNavigate } from 'react-router';

import { errorMessage } from '../../api/errors';
import { useAppDispatch, useAppSelector } from '../../app/store';
import { paths } from '../../config/paths';
import { noticeShown, selectAuthUser } from '../../session/authSlice';
import { useRemoveMemberMutation } from './api';
import { JoinedBanner } from './JoinedBanner';
import { MemberConfirmDialog, type Pending } from './MemberConfirmDialog';
import type { Organization } from './types';
import { useCurrentOrg } from './useCurrentOrg';
import { useOrgTwoFactorBlock } from './useOrgTwoFactorBlock';

/** Pages that are not the current organization's: they stay open behind the notice. */
const NOT_THE_ORGANIZATIONS = [paths.accountSecurity, paths.admin, paths.setupAdmin];

/**
 * Says that the organization requires two-factor authentication and offers what the member can really do:
 * add a factor (Account Security), leave the organization (confirmed here: its Members page is held back
 * too), and switch organizations only when there is another one to switch to.
 */
export function OrgTwoFactorNotice({
  org,
  onSecurityPage,
}: {
  org: Organization;
  onSecurityPage: boolean;
}) {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const user = useAppSelector(selectAuthUser);
  const { orgs } = useCurrentOrg();
  const [removeMember, leaving] = useRemoveMemberMutation();
  const [confirming, setConfirming] = useState<Pending>(null);
  const canSwitch = orgs.length > 1;

  const askToLeave = () => {
    if (!user) return;
    setConfirming({
      kind: 'leave',
      member: {
        user: { id: user.id, email: user.email },
        role: org.role,
        joinedAt: org.createdAt,
        hasTwoFactor: false,
      },
    });
  };

  const onLeave = async () => {
    if (!user) return;
    try {
      await removeMember({ orgId: org.id, memberId: user.id, leaving: true }).unwrap();
      dispatch(noticeShown({ severity: 'success', text: `You have left ${org.name}.` }));
      setConfirming(null);
      void navigate(paths.dashboard, { replace: true });
    } catch (error) {
      dispatch(
        noticeShown({
          severity: 'error',
          text: errorMessage(error, 'Failed to leave organization.'),
        }),
      );
      setConfirming(null);
    }
  };

  return (
    <>
      <Alert severity="warning" sx={{ mb: 3 }}>
        <AlertTitle>{org.name} requires two-factor authentication</AlertTitle>
        <Typography variant="body2">
          {onSecurityPage
            ? 'Add an authenticator app below (or sign in again with the one you have) to work in this organization.'
            : 'Add an authenticator app on Account Security (or sign in again with the one you have) to work in this organization.'}{' '}
          {canSwitch
            ? 'You can also switch to another of your organizations in the menu, or leave this one.'
            : 'If you would rather not, you can leave this organization.'}
        </Typography>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ mt: 1.5 }}>
          {!onSecurityPage && (
            <Button
              component={RouterLink}
              to={paths.accountSecurity}
              variant="contained"
              size="small"
            >
              Set up two-factor authentication
            </Button>
          )}
          <Button
            variant="outlined"
            color="inherit"
            size="small"
            onClick={askToLeave}
            disabled={!user}
          >
            Leave {org.name}
          </Button>
        </Stack>
      </Alert>
      <MemberConfirmDialog
        pending={confirming}
        busy={leaving.isLoading}
        onClose={() => {
          setConfirming(null);
        }}
        onConfirm={() => {
          void onLeave();
        }}
      />
    </>
  );
}

/**
 * The signed-in layout's content: while the current organization requires a second factor this session
 * has not passed, its screens show the notice instead of failing; the account's own pages stay open
 * below it. The welcome of a just-accepted invitation stays above the notice.
 */
export function OrgTwoFactorGate({ children }: { children: ReactNode }) {
  const blocked = useOrgTwoFactorBlock();
  const { pathname } = useLocation();
  const open = NOT_THE_ORGANIZATIONS.some((path) => pathname.startsWith(path));
  // The same shape whether or not the notice shows: a page that stays open (Account Security, where the
  // factor is added) keeps its state when the notice goes away.
  return (
    <>
      {blocked && !open && <JoinedBanner fallbackName={blocked.name} sx={{ mb: 3 }} />}
      {blocked && (
        <OrgTwoFactorNotice
          org={blocked}
          onSecurityPage={pathname.startsWith(paths.accountSecurity)}
        />
      )}
      {(!blocked || open) && children}
    </>
  );
}

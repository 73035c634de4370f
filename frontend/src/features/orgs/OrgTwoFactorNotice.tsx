import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Button from '@mui/material/Button';
import type { ReactNode } from 'react';
import { Link as RouterLink, useLocation } from 'react-router';

import { paths } from '../../config/paths';
import type { Organization } from './types';
import { useOrgTwoFactorBlock } from './useOrgTwoFactorBlock';

/** Pages that are not the current organization's: they stay open behind the notice. */
const NOT_THE_ORGANIZATIONS = [paths.accountSecurity, paths.admin, paths.setupAdmin];

/** Says that the organization requires two-factor authentication, with the way to Account Security. */
export function OrgTwoFactorNotice({
  org,
  onSecurityPage,
}: {
  org: Organization;
  onSecurityPage: boolean;
}) {
  return (
    <Alert
      severity="warning"
      sx={{ mb: 3 }}
      action={
        onSecurityPage ? undefined : (
          <Button component={RouterLink} to={paths.accountSecurity} color="inherit" size="small">
            Set up two-factor authentication
          </Button>
        )
      }
    >
      <AlertTitle>{org.name} requires two-factor authentication</AlertTitle>
      {onSecurityPage
        ? 'Add an authenticator app below (or sign in again with the one you have) to work in this organization again.'
        : 'Add an authenticator app on Account Security (or sign in again with the one you have) to work in this organization. You can still switch to another organization.'}
    </Alert>
  );
}

/**
 * The signed-in layout's content: while the current organization requires a second factor this session
 * has not passed, its screens show the notice instead of failing; the account's own pages stay open
 * below it.
 */
export function OrgTwoFactorGate({ children }: { children: ReactNode }) {
  const blocked = useOrgTwoFactorBlock();
  const { pathname } = useLocation();
  const open = NOT_THE_ORGANIZATIONS.some((path) => pathname.startsWith(path));
  // The same shape whether or not the notice shows: a page that stays open (Account Security, where the
  // factor is added) keeps its state when the notice goes away.
  return (
    <>
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

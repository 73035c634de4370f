import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Link from '@mui/material/Link';
import { Link as RouterLink } from 'react-router';

import { paths } from '../../config/paths';
import { useGetOrgQuery } from './api';
import type { Organization } from './types';
import { useCurrentOrg } from './useCurrentOrg';

/**
 * Shown while the current organization has no contact e-mail (spec §2), on the pages where publishing
 * happens (the layout decides which: `showsProfileBanner`). Admins get a link to the form; members, who
 * cannot edit it, are told which admin to ask.
 */
export function ProfileIncompleteBanner() {
  const { current, isAdmin } = useCurrentOrg();
  const incomplete = Boolean(current && !current.profile.contactEmail);
  if (!current || !incomplete) return null;
  return (
    <Alert severity="warning" sx={{ mb: 3 }}>
      <AlertTitle>Organization profile incomplete</AlertTitle>A contact email is needed before apps
      can be published.{' '}
      {isAdmin ? (
        <Link
          component={RouterLink}
          to={paths.orgSettings()}
          color="inherit"
          sx={{ fontWeight: 600 }}
        >
          Complete the organization profile
        </Link>
      ) : (
        <AskAnAdmin org={current} />
      )}
    </Alert>
  );
}

/** Names an admin from the organization's member list (the list lives in the organization's own answer). */
function AskAnAdmin({ org }: { org: Organization }) {
  const details = useGetOrgQuery(org.id);
  const admin = details.data?.members?.find((member) => member.role === 'admin');
  if (admin) {
    return (
      <>
        Only an admin can add it: ask <strong>{admin.user.email}</strong>.
      </>
    );
  }
  // While the list loads, when it fails, or when no admin is left: the sentence still holds.
  return <>Only an admin can add it: ask an admin of {org.name}.</>;
}

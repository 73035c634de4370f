import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Link from '@mui/material/Link';
import { Link as RouterLink } from 'react-router';

import { paths } from '../../config/paths';
import { useCurrentOrg } from './useCurrentOrg';

/** Shown on every page while the current organization has no contact e-mail (spec §2). */
export function ProfileIncompleteBanner() {
  const { current } = useCurrentOrg();
  if (!current || current.profile.contactEmail) return null;
  return (
    <Alert severity="warning" sx={{ mb: 3 }}>
      <AlertTitle>Organization profile incomplete</AlertTitle>A contact email is needed before apps
      can be published.{' '}
      <Link
        component={RouterLink}
        to={paths.orgSettings()}
        color="inherit"
        sx={{ fontWeight: 600 }}
      >
        Complete the organization profile
      </Link>
    </Alert>
  );
}

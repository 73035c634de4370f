import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { Navigate } from 'react-router';

import { isMfaRefusal } from '../../api/errors';

import { PageSpinner } from '../../components/PageSpinner';
import { paths } from '../../config/paths';
import { SecondFactorNeeded } from '../account';
import { useGetAdminCheckQuery } from '../auth';
import { AdminPanel } from './AdminPanel';
import { useDocumentTitle } from '../../components/useDocumentTitle';

/**
 * `/admin` (spec §2, PRODUCT.md §5), guarded in the browser: a spinner while the admin check runs, the
 * dashboard for anyone who is neither platform admin nor reviewer. The server refuses them anyway (403).
 */
export function AdminPage() {
  useDocumentTitle('Admin Panel');
  const check = useGetAdminCheckQuery();
  if (check.isLoading) return <PageSpinner label="Checking your access" />;
  // Platform staff whose session has not passed a second factor (PORTAL_STAFF_MFA=required): the way to
  // add one, or to confirm with it.
  if (check.isError && isMfaRefusal(check.error)) {
    return (
      <Stack spacing={3}>
        <Typography variant="h4" component="h1" sx={{ fontWeight: 700 }}>
          Admin Panel
        </Typography>
        <SecondFactorNeeded next={paths.admin} what="the Admin Panel" />
      </Stack>
    );
  }
  if (check.isError && !check.data) {
    return (
      <Alert
        severity="error"
        action={
          <Button color="inherit" size="small" onClick={() => void check.refetch()}>
            Retry
          </Button>
        }
      >
        Could not check your access to the Admin Panel. Please try again.
      </Alert>
    );
  }
  if (!check.data?.isAdmin || !check.data.role) return <Navigate to={paths.dashboard} replace />;
  return <AdminPanel role={check.data.role} />;
}

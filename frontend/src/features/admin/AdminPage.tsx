import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import { Navigate } from 'react-router';

import { PageSpinner } from '../../components/PageSpinner';
import { paths } from '../../config/paths';
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

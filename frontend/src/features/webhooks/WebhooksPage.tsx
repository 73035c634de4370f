import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';

import { Loading } from '../../components/Loading';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { useCurrentOrg } from '../orgs';
import { EndpointList } from './EndpointList';

export const ONLY_ADMINS =
  'Only organization admins can manage webhooks. Ask an admin of this organization to add one.';

/**
 * Organization Settings → Webhooks (issue 38): the organization's endpoints with their health, adding and
 * editing them with the event checklist, the secret shown once, rotating it, a test, and each endpoint's
 * delivery log with Retry. Only admins manage webhooks; members who open the address are told so.
 */
export function WebhooksPage() {
  useDocumentTitle('Webhooks');
  const { current, isAdmin, isLoading, isError, refetch } = useCurrentOrg();

  let body;
  if (isLoading) {
    body = <Loading label="Loading organization..." />;
  } else if (isError) {
    body = (
      <Alert
        severity="error"
        action={
          <Button color="inherit" size="small" onClick={refetch}>
            Retry
          </Button>
        }
      >
        Failed to load organization data. Please try again.
      </Alert>
    );
  } else if (!current) {
    body = (
      <Alert severity="info">
        You don&apos;t have an active organization. Please create or join an organization first.
      </Alert>
    );
  } else if (!isAdmin) {
    body = <Alert severity="info">{ONLY_ADMINS}</Alert>;
  } else {
    body = <EndpointList key={current.id} orgId={current.id} orgName={current.name} />;
  }

  return (
    <Stack spacing={3}>
      <div>
        <Typography variant="h4" component="h1">
          Webhooks
        </Typography>
        <Typography color="text.secondary">
          Signed requests to your own systems when something happens in this organization: reviews,
          outages, members. Each delivery is retried for about three days.
        </Typography>
      </div>
      {body}
    </Stack>
  );
}

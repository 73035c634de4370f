import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import ErrorIcon from '@mui/icons-material/Error';
import HelpOutlineIcon from '@mui/icons-material/HelpOutlined';
import NetworkCheckIcon from '@mui/icons-material/NetworkCheck';

import { errorMessage } from '../../../api/errors';
import { usePingHealthMutation } from './api';
import { healthUrl, utcDateTime } from './month';
import type { AppUptimeDetail as Detail } from './types';

/** The statuses the monitor checks (PRODUCT.md §5). */
const MONITORED: readonly string[] = ['SUBMITTED', 'PUBLISHED'];

/**
 * The current state: All systems operational, or System experiencing issues with the current status; for
 * an app the monitor no longer checks, a neutral Not monitored.
 */
export function CurrentState({ detail, status }: { detail: Detail; status: string }) {
  const online = detail.online;
  if (!MONITORED.includes(status)) {
    return (
      <Stack direction="row" spacing={1.5} sx={{ alignItems: 'flex-start' }}>
        <HelpOutlineIcon color="disabled" fontSize="large" titleAccess="Not monitored" />
        <Box>
          <Typography variant="h6" component="p">
            Not monitored
          </Typography>
          <Typography variant="body2" color="text.secondary">
            The monitor checks submitted and published apps only; this app is {status.toLowerCase()}
            .{detail.lastCheckedAt && ` Its last check was ${utcDateTime(detail.lastCheckedAt)}.`}
          </Typography>
        </Box>
      </Stack>
    );
  }
  if (!detail.lastCheckedAt) {
    return (
      <Stack direction="row" spacing={1.5} sx={{ alignItems: 'flex-start' }}>
        <HelpOutlineIcon color="disabled" fontSize="large" titleAccess="Not checked" />
        <Box>
          <Typography variant="h6" component="p">
            Not checked yet
          </Typography>
          <Typography variant="body2" color="text.secondary">
            The monitor has not checked this app yet: there is no status to show.
          </Typography>
        </Box>
      </Stack>
    );
  }
  return (
    <Stack direction="row" spacing={1.5} sx={{ alignItems: 'flex-start' }}>
      {online ? (
        <CheckCircleIcon color="success" fontSize="large" titleAccess="Online" />
      ) : (
        <ErrorIcon color="error" fontSize="large" titleAccess="Offline" />
      )}
      <Box>
        <Typography variant="h6" component="p">
          {online ? 'All systems operational' : 'System experiencing issues'}
        </Typography>
        {!online && (
          <Typography variant="body2">
            Current status: <strong>{detail.healthStatus}</strong>. Check events below.
          </Typography>
        )}
        <Typography variant="body2" color="text.secondary">
          Last checked {utcDateTime(detail.lastCheckedAt)}
          {detail.statusChangedAt &&
            ` · ${online ? 'Online' : 'Offline'} since ${utcDateTime(detail.statusChangedAt)}`}
          {!online &&
            detail.consecutiveOffline > 0 &&
            ` · ${detail.consecutiveOffline} failed ${detail.consecutiveOffline === 1 ? 'check' : 'checks'} in a row`}
        </Typography>
      </Box>
    </Stack>
  );
}

/** "Check now": the staff ping of the app's health URL, with its live result (not recorded). */
export function CheckNow({ publicUrl }: { publicUrl: string }) {
  const [ping, result] = usePingHealthMutation();
  const url = healthUrl(publicUrl);
  let outcome = null;
  if (result.data) {
    const data = result.data;
    const facts = [
      data.status != null ? `HTTP ${data.status}` : 'no answer',
      data.latencyMs != null ? `${data.latencyMs} ms` : null,
    ].filter(Boolean);
    outcome = (
      <Alert severity={data.online ? 'success' : 'error'} role="status">
        {data.online ? 'Online' : 'Offline'}: {data.health} ({facts.join(', ')})
      </Alert>
    );
  } else if (result.isError) {
    outcome = (
      <Alert severity="error" role="status">
        {errorMessage(result.error, 'The health check could not be run. Please try again.')}
      </Alert>
    );
  }
  return (
    <Stack spacing={1}>
      <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
        <Button
          variant="outlined"
          size="small"
          startIcon={<NetworkCheckIcon />}
          loading={result.isLoading}
          loadingPosition="start"
          onClick={() => void ping(url)}
        >
          Check now
        </Button>
        <Typography variant="body2" color="text.secondary" sx={{ wordBreak: 'break-all' }}>
          {url}
        </Typography>
      </Stack>
      {outcome}
    </Stack>
  );
}

import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import WarningIcon from '@mui/icons-material/Warning';
import CircularProgress from '@mui/material/CircularProgress';
import ListItem from '@mui/material/ListItem';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';

import { errorMessage } from '../../../api/errors';
import type { HealthCheck } from '../../../api/types';

export interface HealthCheckItemProps {
  /** The check's query; `error` is the server's refusal (a limit on live checks: 429 with its reason). */
  health: { data?: HealthCheck; isFetching: boolean; isError: boolean; error?: unknown };
  publicUrl: string;
}

/** Why the last check was not healthy, in words. */
function healthProblem(check: HealthCheck): string {
  switch (check.health) {
    case 'timeout':
      return 'it did not answer within 10 seconds';
    case 'unreachable':
      return 'it could not be reached';
    case 'error':
      return 'it could not be checked (a private or local address, a redirect, or an answer over 64 KB)';
    default:
      if (check.status !== 200)
        return `it answered HTTP ${check.status ?? 'nothing'} instead of 200`;
      return check.data.status == null
        ? 'it answered HTTP 200 without the JSON body {"status":"healthy"}'
        : `it answered HTTP 200 with "status": ${JSON.stringify(check.data.status)} instead of "healthy"`;
  }
}

/**
 * The publish checklist's live health check (PRODUCT.md §9): the app's server is asked for `/health` now, and
 * is healthy when it answers status 200 with the JSON body `{"status":"healthy"}` (the monitor's rule).
 * It informs and does not block: reviewers and the uptime monitor see the same answer.
 */
export function HealthCheckItem({ health, publicUrl }: HealthCheckItemProps) {
  const url = `${publicUrl.replace(/\/+$/, '')}/health`;
  let icon;
  let secondary;
  if (health.isFetching) {
    icon = <CircularProgress size={20} aria-label="Checking the server" />;
    secondary = `Asking ${url}…`;
  } else if (health.data?.online) {
    icon = <CheckCircleIcon color="success" titleAccess="Done" />;
    secondary =
      health.data.latencyMs != null ? `Answered in ${health.data.latencyMs} ms` : undefined;
  } else {
    icon = <WarningIcon color="warning" titleAccess="Warning" />;
    secondary = health.data
      ? `${url}: ${healthProblem(health.data)}. You can still submit; reviewers will see it offline.`
      : `${errorMessage(health.error, 'The health check could not be run.')} You can still submit.`;
  }
  return (
    <ListItem disableGutters>
      <ListItemIcon sx={{ minWidth: 36 }}>{icon}</ListItemIcon>
      <ListItemText
        primary={'Server answers GET /health with 200 {"status":"healthy"}'}
        secondary={secondary}
      />
    </ListItem>
  );
}

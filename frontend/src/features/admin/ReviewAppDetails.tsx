import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useEffect, type ReactNode } from 'react';

import { errorMessage } from '../../api/errors';
import { AppLogo } from './AppLogo';
import { ReviewChanges } from './ReviewChanges';
import { usePingHealthMutation } from './uptime/api';
import { healthUrl } from './uptime/month';
import { developerOf, historyKind, usDate, usDateTime } from './format';
import { hardwareLabels, permissionLabels } from '../apps';
import type { AdminApp, ReviewHistoryEntry } from './types';

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <Typography component="dt" variant="subtitle2" color="text.secondary">
        {label}
      </Typography>
      <Typography component="dd" sx={{ m: 0, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
        {children}
      </Typography>
    </div>
  );
}

function History({ history }: { history: ReviewHistoryEntry[] }) {
  return (
    <section aria-labelledby="review-history">
      <Typography id="review-history" variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
        Review history
      </Typography>
      {history.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          No review history yet
        </Typography>
      ) : (
        <List dense aria-labelledby="review-history">
          {history.map((entry) => (
            <ListItem key={entry.id} disableGutters sx={{ display: 'block' }}>
              <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
                <Typography variant="body2" sx={{ fontWeight: 600 }}>
                  {historyKind(entry.kind)}
                </Typography>
                <Typography variant="body2" color="text.secondary">
                  {usDateTime(entry.at)} by {entry.actorEmail}
                </Typography>
                {entry.selfReview && (
                  <Chip size="small" color="warning" variant="outlined" label="Self-review" />
                )}
              </Stack>
              {entry.notes && (
                <Typography
                  variant="body2"
                  sx={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}
                >
                  {entry.notes}
                </Typography>
              )}
            </ListItem>
          ))}
        </List>
      )}
    </section>
  );
}

/** The loosely typed lists of the admin answer, read as the app editors write them. */
interface Listed {
  type?: string;
  key?: string;
  name?: string;
  level?: string;
  description?: string;
}
const listed = (items: readonly object[]) => items as Listed[];

function labelOf(labels: Record<string, string>, type: string | undefined): string {
  return (type && labels[type]) ?? type ?? 'Unknown';
}

/** The live result of the app's health URL (the staff health check; nothing is recorded). */
function LiveHealth({ publicUrl }: { publicUrl: string }) {
  const [ping, result] = usePingHealthMutation();
  useEffect(() => {
    if (!publicUrl) return;
    const request = ping(healthUrl(publicUrl));
    return () => {
      request.abort();
    };
  }, [publicUrl, ping]);

  if (!publicUrl) return null;
  if (result.isUninitialized || result.isLoading) {
    return (
      <Typography component="span" variant="body2" color="text.secondary" role="status">
        Checking the server...
      </Typography>
    );
  }
  if (result.data) {
    const data = result.data;
    const facts = [
      data.status != null ? `HTTP ${String(data.status)}` : 'no answer',
      data.latencyMs != null ? `${String(data.latencyMs)} ms` : null,
    ].filter(Boolean);
    return (
      <Chip
        component="span"
        size="small"
        variant="outlined"
        color={data.online ? 'success' : 'error'}
        label={`${data.online ? 'Online' : 'Offline'}: ${data.health} (${facts.join(', ')})`}
        role="status"
      />
    );
  }
  return (
    <Typography component="span" variant="body2" color="error" role="status">
      {errorMessage(result.error, 'The health check could not be run.')}{' '}
      <Link component="button" type="button" onClick={() => void ping(healthUrl(publicUrl))}>
        Check again
      </Link>
    </Typography>
  );
}

/** What the reviewer judges besides the description (issue 25, item 11). */
function ReviewedFields({ app }: { app: AdminApp }) {
  const permissions = listed(app.permissions);
  const hardware = listed(app.hardwareRequirements);
  return (
    <>
      <Field label="Since the last decision">
        <ReviewChanges since={app.sinceLastDecision} />
      </Field>
      <Field label="Server URL">
        {app.publicUrl || 'None'}
        {app.publicUrl && (
          <Box component="span" sx={{ display: 'block', mt: 0.5 }}>
            <LiveHealth publicUrl={app.publicUrl} />
          </Box>
        )}
      </Field>
      <Field label="Tester link">
        {app.testerUrl ? (
          <Link href={app.testerUrl} target="_blank" rel="noopener noreferrer">
            {app.testerUrl}
          </Link>
        ) : (
          'None: the developer has not shared the app with testers'
        )}
      </Field>
      <Field label="Webview URL">{app.webviewURL ?? 'None'}</Field>
      <Field label="Permissions">
        {permissions.length === 0
          ? 'No permissions requested'
          : permissions
              .map(
                (p) =>
                  `${labelOf(permissionLabels, p.type)}${p.description ? `: ${p.description}` : ''}`,
              )
              .join('\n')}
      </Field>
      <Field label="Hardware">
        {hardware.length === 0
          ? 'No special hardware'
          : hardware
              .map(
                (h) =>
                  `${labelOf(hardwareLabels, h.type)} (${h.level === 'REQUIRED' ? 'required' : 'optional'})`,
              )
              .join('\n')}
      </Field>
      <Field label="Settings and tools">
        {`${app.settings.length} ${app.settings.length === 1 ? 'setting' : 'settings'}, ${
          app.tools.length
        } AI ${app.tools.length === 1 ? 'tool' : 'tools'}`}
      </Field>
    </>
  );
}

/** When the app was last submitted: its newest `submitted` event, else its last change. */
const submittedAt = (app: AdminApp) =>
  app.history.filter((entry) => entry.kind === 'submitted').at(-1)?.at ?? app.updatedAt;

/** What the reviewer sees of the app: its logo and name, fields, what changed, and its review history. */
export function AppDetails({ app }: { app: AdminApp }) {
  return (
    <Stack spacing={2}>
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
        <AppLogo src={app.logoURL} size={64} />
        <Box sx={{ minWidth: 0 }}>
          <Typography variant="h6" component="p">
            {app.name}
          </Typography>
          <Typography variant="body2" color="text.secondary" sx={{ wordBreak: 'break-all' }}>
            {app.packageName}
          </Typography>
        </Box>
      </Stack>
      <Box component="dl" sx={{ display: 'grid', gap: 1.5, m: 0 }}>
        <Field label="Description">{app.description || 'No description provided'}</Field>
        <Field label="Developer">{developerOf(app)}</Field>
        <Field label="Submitted">{usDate(submittedAt(app))}</Field>
        <ReviewedFields app={app} />
      </Box>
      <History history={app.history} />
    </Stack>
  );
}

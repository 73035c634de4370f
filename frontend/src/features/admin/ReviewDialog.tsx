import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Link from '@mui/material/Link';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useEffect, useState, type ReactNode } from 'react';

import { errorMessage, isApiErrorBody, isFetchBaseQueryError } from '../../api/errors';
import { useAppDispatch } from '../../app/store';
import { noticeShown } from '../../session/authSlice';
import { useApproveAppMutation, useGetAdminAppQuery, useRejectAppMutation } from './api';
import { AppLogo } from './AppLogo';
import { ReviewChanges } from './ReviewChanges';
import { usePingHealthMutation } from './uptime/api';
import { healthUrl } from './uptime/month';
import { developerOf, historyKind, usDate, usDateTime } from './format';
import { Loading } from '../../components/Loading';
import { hardwareLabels, permissionLabels } from '../apps';
import type { AdminApp, ReviewHistoryEntry } from './types';

/** The server's answer when the app changed since the reviewer opened it (PRODUCT.md §4). */
export const APP_CHANGED = 'The app changed since you opened it';

const MESSAGES = {
  approve: {
    done: 'App approved successfully!',
    failed: 'Failed to approve app. Please try again.',
  },
  reject: {
    done: 'App rejected. Developer has been notified.',
    failed: 'Failed to reject app. Please try again.',
  },
} as const;

type Action = keyof typeof MESSAGES;

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

function AppDetails({ app }: { app: AdminApp }) {
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

/**
 * Review App Submission (spec §2, §8; PRODUCT.md §4): the app, its history and the decision. A decision
 * carries the revision the reviewer saw; when the app changed since, the dialog says so and reloads it.
 * Render it with `key={packageName}` so that every app starts with empty notes.
 */
export function ReviewDialog({
  packageName,
  onClose,
}: {
  packageName: string | null;
  onClose: () => void;
}) {
  const dispatch = useAppDispatch();
  const app = useGetAdminAppQuery(packageName ?? '', {
    skip: !packageName,
    refetchOnMountOrArgChange: true,
  });
  const [approve, approving] = useApproveAppMutation();
  const [reject, rejecting] = useRejectAppMutation();
  const [notes, setNotes] = useState('');
  const [failure, setFailure] = useState<string | null>(null);

  const busy = approving.isLoading || rejecting.isLoading;
  const loaded = app.data?.packageName === packageName ? app.data : undefined;

  const decide = async (action: Action) => {
    if (!loaded || !packageName) return;
    setFailure(null);
    const request = { packageName, notes: notes.trim(), expectedUpdatedAt: loaded.updatedAt };
    try {
      await (action === 'approve' ? approve(request) : reject(request)).unwrap();
      dispatch(noticeShown({ severity: 'success', text: MESSAGES[action].done }));
      onClose();
    } catch (error) {
      if (
        isFetchBaseQueryError(error) &&
        error.status === 409 &&
        isApiErrorBody(error.data) &&
        error.data.code === 'APP_CHANGED'
      ) {
        setFailure(`${APP_CHANGED}. It has been reloaded: please review it again.`);
        void app.refetch();
        return;
      }
      const detail =
        isFetchBaseQueryError(error) && isApiErrorBody(error.data) && error.status !== 500
          ? ` (${error.data.error})`
          : '';
      setFailure(`${MESSAGES[action].failed}${detail}`);
    }
  };

  let body;
  if (!packageName) body = null;
  else if (app.isFetching && !loaded) body = <Loading label="Loading app details..." />;
  else if (!loaded) {
    body = (
      <Alert
        severity="error"
        action={
          <Button color="inherit" size="small" onClick={() => void app.refetch()}>
            Retry
          </Button>
        }
      >
        Error loading app details. Please try again.
      </Alert>
    );
  } else {
    body = (
      <Stack spacing={2}>
        <AppDetails app={loaded} />
        {loaded.appStoreStatus !== 'SUBMITTED' && (
          <Alert severity="info">
            This app is no longer waiting for review (status {loaded.appStoreStatus}).
          </Alert>
        )}
        {loaded.selfReview && (
          <Alert severity="warning">
            You are a member of this app&apos;s organization: your decision will be recorded as a
            self-review.
          </Alert>
        )}
        <TextField
          label="Review Notes"
          placeholder="Add review notes here (required for rejection)"
          multiline
          minRows={3}
          value={notes}
          onChange={(event) => {
            setNotes(event.target.value);
          }}
          disabled={busy}
          fullWidth
        />
      </Stack>
    );
  }

  return (
    <Dialog
      open={packageName !== null}
      onClose={busy ? undefined : onClose}
      fullWidth
      maxWidth="sm"
      aria-labelledby="review-dialog-title"
    >
      <DialogTitle id="review-dialog-title">Review App Submission</DialogTitle>
      <DialogContent dividers>
        <Stack spacing={2}>
          {failure && (
            <Alert severity="error" role="alert">
              {failure}
            </Alert>
          )}
          {body}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy}>
          Cancel
        </Button>
        <Button
          color="error"
          variant="outlined"
          onClick={() => void decide('reject')}
          disabled={!loaded || busy || app.isFetching || notes.trim() === ''}
        >
          {rejecting.isLoading ? 'Rejecting...' : 'Reject'}
        </Button>
        <Button
          color="success"
          variant="contained"
          onClick={() => void decide('approve')}
          disabled={!loaded || busy || app.isFetching}
        >
          {approving.isLoading ? 'Approving...' : 'Approve'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

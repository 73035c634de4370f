import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useId, useState } from 'react';

import { errorMessage } from '../../api/errors';
import type { WebhookEndpoint, WebhookEventType } from '../../api/types';
import { Loading } from '../../components/Loading';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { useCurrentOrg } from '../orgs';
import {
  useCreateWebhookMutation,
  useDeleteWebhookMutation,
  useListWebhooksQuery,
  useRotateWebhookSecretMutation,
  useTestWebhookMutation,
  useUpdateWebhookMutation,
} from './api';
import { DeliveryLog } from './DeliveryLog';
import { EndpointDialog, type EndpointValues } from './EndpointDialog';
import { eventsText, healthText } from './format';
import { SecretDialog } from './SecretDialog';

export const ONLY_ADMINS =
  'Only organization admins can manage webhooks. Ask an admin of this organization to add one.';

/** Why Send test is off on a disabled endpoint. */
export const TEST_OFF_WHILE_DISABLED =
  'Send test is off while this endpoint is disabled: a disabled endpoint is sent nothing. Enable it to send a test.';

function EndpointCard({
  orgId,
  endpoint,
  eventTypes,
  onSecret,
}: {
  orgId: string;
  endpoint: WebhookEndpoint;
  eventTypes: WebhookEventType[];
  onSecret: (secret: string) => void;
}) {
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [showLog, setShowLog] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [update, { isLoading: saving }] = useUpdateWebhookMutation();
  const [remove, { isLoading: removing }] = useDeleteWebhookMutation();
  const [rotate, { isLoading: rotating }] = useRotateWebhookSecretMutation();
  const [test, { isLoading: testing }] = useTestWebhookMutation();
  const ids = { orgId, id: endpoint.id };
  const testOffId = useId();

  const act = async <T,>(
    run: () => Promise<{ data: T } | { error: unknown }>,
    done: (data: T) => void,
    fallback: string,
  ) => {
    setNotice(null);
    setFailure(null);
    const result = await run();
    if ('error' in result) setFailure(errorMessage(result.error, fallback));
    else done(result.data);
  };

  return (
    <Card variant="outlined" component="li" sx={{ listStyle: 'none' }}>
      <CardContent>
        <Stack spacing={1.5}>
          {/* On a phone the URL and the chip stack; the chip keeps its own width (issue 48 item 13). */}
          <Stack
            direction={{ xs: 'column', sm: 'row' }}
            spacing={1}
            sx={(theme) => ({
              alignItems: 'flex-start',
              [theme.breakpoints.up('sm')]: { alignItems: 'center' },
            })}
          >
            <Typography variant="h6" component="h2" sx={{ wordBreak: 'break-all', flexGrow: 1 }}>
              {endpoint.url}
            </Typography>
            <Chip
              size="small"
              color={!endpoint.enabled ? 'default' : endpoint.failingSince ? 'error' : 'success'}
              label={!endpoint.enabled ? 'Disabled' : endpoint.failingSince ? 'Failing' : 'Active'}
            />
          </Stack>
          {endpoint.description && <Typography>{endpoint.description}</Typography>}
          <Typography variant="body2" color="text.secondary">
            {healthText(endpoint)} · Events: {eventsText(endpoint)}
          </Typography>
          {notice && <Alert severity="success">{notice}</Alert>}
          {failure && (
            <Alert severity="error" role="alert">
              {failure}
            </Alert>
          )}
          <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', rowGap: 1 }}>
            <Button
              size="small"
              // A disabled endpoint is sent nothing, tests included: the button says so (issue 48 item 7).
              disabled={testing || !endpoint.enabled}
              aria-describedby={endpoint.enabled ? undefined : testOffId}
              onClick={() =>
                void act(
                  () => test(ids),
                  () => {
                    setNotice('A webhook.test delivery was queued: it shows in the delivery log.');
                    setShowLog(true);
                  },
                  'The test could not be sent.',
                )
              }
            >
              Send test
            </Button>
            <Button
              size="small"
              onClick={() => {
                setShowLog((value) => !value);
              }}
              aria-expanded={showLog}
            >
              {showLog ? 'Hide deliveries' : 'Deliveries'}
            </Button>
            <Button
              size="small"
              onClick={() => {
                setEditing(true);
              }}
            >
              Edit
            </Button>
            <Button
              size="small"
              disabled={saving}
              onClick={() =>
                void act(
                  () => update({ ...ids, body: { enabled: !endpoint.enabled } }),
                  () => {
                    setNotice(endpoint.enabled ? 'Disabled.' : 'Enabled.');
                  },
                  'The endpoint could not be changed.',
                )
              }
            >
              {endpoint.enabled ? 'Disable' : 'Enable'}
            </Button>
            <Button
              size="small"
              disabled={rotating}
              onClick={() =>
                void act(
                  () => rotate(ids),
                  (rotated) => {
                    if (rotated) onSecret(rotated.secret);
                  },
                  'The secret could not be rotated.',
                )
              }
            >
              Rotate secret
            </Button>
            <Button
              size="small"
              color="error"
              onClick={() => {
                setDeleting(true);
              }}
            >
              Delete
            </Button>
          </Stack>
          {!endpoint.enabled && (
            <Typography id={testOffId} variant="body2" color="text.secondary">
              {TEST_OFF_WHILE_DISABLED}
            </Typography>
          )}
          {showLog && <DeliveryLog orgId={orgId} endpointId={endpoint.id} />}
        </Stack>
      </CardContent>
      {editing && (
        <EndpointDialog
          open
          endpoint={endpoint}
          eventTypes={eventTypes}
          busy={saving}
          onClose={() => {
            setEditing(false);
          }}
          onSave={async (values: EndpointValues) => {
            const result = await update({ ...ids, body: values });
            if ('error' in result) return result.error;
            setEditing(false);
            setNotice('Saved.');
            return undefined;
          }}
        />
      )}
      <Dialog
        open={deleting}
        onClose={() => {
          setDeleting(false);
        }}
      >
        <DialogTitle>Delete this endpoint?</DialogTitle>
        <DialogContent>
          <Typography>
            {endpoint.url} receives no more events, and its delivery log is deleted with it.
          </Typography>
        </DialogContent>
        <DialogActions>
          <Button
            onClick={() => {
              setDeleting(false);
            }}
          >
            Cancel
          </Button>
          <Button
            color="error"
            variant="contained"
            disabled={removing}
            onClick={() =>
              void act(
                () => remove(ids),
                () => {
                  setDeleting(false);
                },
                'The endpoint could not be deleted.',
              ).then(() => {
                setDeleting(false);
              })
            }
          >
            Delete
          </Button>
        </DialogActions>
      </Dialog>
    </Card>
  );
}

function Endpoints({ orgId, orgName }: { orgId: string; orgName: string }) {
  const { data, error, isLoading, isFetching, refetch } = useListWebhooksQuery(orgId, {
    pollingInterval: 10_000,
  });
  const [create, { isLoading: creating }] = useCreateWebhookMutation();
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<{ value: string; rotated: boolean } | null>(null);

  if (isLoading) return <Skeleton variant="rounded" height={120} aria-label="Loading webhooks" />;
  if (error || !data) {
    return (
      <Alert
        severity="error"
        action={
          <Button color="inherit" onClick={() => void refetch()} disabled={isFetching}>
            Retry
          </Button>
        }
      >
        {errorMessage(error, 'The webhooks could not be loaded.')}
      </Alert>
    );
  }
  return (
    <Stack spacing={2}>
      <div>
        <Button
          variant="contained"
          onClick={() => {
            setAdding(true);
          }}
        >
          Add endpoint
        </Button>
      </div>
      {data.endpoints.length === 0 ? (
        <Typography>
          {orgName} has no webhook endpoint yet. Add one to tell your chat, CI or on-call tools what
          happens here.
        </Typography>
      ) : (
        <Stack component="ul" spacing={2} sx={{ p: 0, m: 0 }} aria-label="Webhook endpoints">
          {data.endpoints.map((endpoint) => (
            <EndpointCard
              key={endpoint.id}
              orgId={orgId}
              endpoint={endpoint}
              eventTypes={data.eventTypes}
              onSecret={(value) => {
                setSecret({ value, rotated: true });
              }}
            />
          ))}
        </Stack>
      )}
      {adding && (
        <EndpointDialog
          open
          eventTypes={data.eventTypes}
          busy={creating}
          onClose={() => {
            setAdding(false);
          }}
          onSave={async (body) => {
            const result = await create({ orgId, body });
            if ('error' in result) return result.error;
            setAdding(false);
            setSecret({ value: result.data.secret, rotated: false });
            return undefined;
          }}
        />
      )}
      <SecretDialog
        secret={secret?.value ?? null}
        rotated={secret?.rotated ?? false}
        onClose={() => {
          setSecret(null);
        }}
      />
    </Stack>
  );
}

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
    body = <Endpoints key={current.id} orgId={current.id} orgName={current.name} />;
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

import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useId, useState } from 'react';

import { errorMessage } from '../../api/errors';
import type { WebhookEndpoint, WebhookEventType } from '../../api/types';
import {
  useDeleteWebhookMutation,
  useRotateWebhookSecretMutation,
  useTestWebhookMutation,
  useUpdateWebhookMutation,
} from './api';
import { DeleteEndpointDialog } from './DeleteEndpointDialog';
import { DeliveryLog } from './DeliveryLog';
import { EndpointDialog, type EndpointValues } from './EndpointDialog';
import { eventsText, healthText } from './format';

/** Why Send test is off on a disabled endpoint. */
export const TEST_OFF_WHILE_DISABLED =
  'Send test is off while this endpoint is disabled: a disabled endpoint is sent nothing. Enable it to send a test.';

/**
 * One endpoint: its URL, state and health, and what an admin does with it (test, deliveries, edit, enable
 * or disable, rotate its secret, delete); each action's outcome shows on the card.
 */
export function EndpointCard({
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
      <DeleteEndpointDialog
        open={deleting}
        url={endpoint.url}
        busy={removing}
        onCancel={() => {
          setDeleting(false);
        }}
        onDelete={() =>
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
      />
    </Card>
  );
}

import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useState } from 'react';

import { errorMessage } from '../../api/errors';
import type { WebhookDelivery } from '../../api/types';
import { QueryContent } from '../../components/QueryContent';
import { useListWebhookDeliveriesQuery, useRetryWebhookDeliveryMutation } from './api';
import { DeliveryDetails } from './DeliveryDetails';
import { formatTime } from './format';

const STATUS_COLOR = {
  DELIVERED: 'success',
  PENDING: 'warning',
  FAILED: 'error',
} as const;

function DeliveryItem({
  delivery,
  onRetry,
  busy,
}: {
  delivery: WebhookDelivery;
  onRetry: () => void;
  busy: boolean;
}) {
  const [open, setOpen] = useState(false);
  return (
    <Box
      component="li"
      sx={{ listStyle: 'none', border: 1, borderColor: 'divider', borderRadius: 1, p: 1.5 }}
      aria-label={`Delivery ${delivery.id}`}
    >
      {/* On a phone the row's parts stack, each at its own width: the chip does not stretch across. */}
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        spacing={1}
        sx={(theme) => ({
          alignItems: 'flex-start',
          [theme.breakpoints.up('sm')]: { alignItems: 'center' },
        })}
      >
        <Chip size="small" color={STATUS_COLOR[delivery.status]} label={delivery.status} />
        <Typography sx={{ fontFamily: 'monospace' }}>{delivery.eventType}</Typography>
        <Typography variant="body2" color="text.secondary" sx={{ flexGrow: 1 }}>
          {formatTime(delivery.createdAt)} · {delivery.attempts}{' '}
          {delivery.attempts === 1 ? 'attempt' : 'attempts'}
          {delivery.responseStatus != null && ` · HTTP ${delivery.responseStatus}`}
          {delivery.durationMs != null && ` · ${delivery.durationMs} ms`}
          {delivery.error && ` · ${delivery.error}`}
        </Typography>
        <Stack direction="row" spacing={1}>
          <Button
            size="small"
            onClick={() => {
              setOpen((value) => !value);
            }}
            aria-expanded={open}
          >
            {open ? 'Hide' : 'Details'}
          </Button>
          <Button size="small" onClick={onRetry} disabled={busy}>
            Retry
          </Button>
        </Stack>
      </Stack>
      {open && <DeliveryDetails delivery={delivery} />}
    </Box>
  );
}

/** One page of the endpoint's deliveries; older ones page by page. */
function DeliveryPage({
  orgId,
  endpointId,
  cursor,
  last,
  onMore,
}: {
  orgId: string;
  endpointId: string;
  cursor?: string;
  last: boolean;
  onMore: (cursor: string) => void;
}) {
  const query = useListWebhookDeliveriesQuery(
    { orgId, id: endpointId, cursor },
    { pollingInterval: cursor ? 0 : 3000 },
  );
  const [retry, { isLoading: retrying }] = useRetryWebhookDeliveryMutation();
  const [retryError, setRetryError] = useState<string | null>(null);
  return (
    <QueryContent
      query={query}
      loadingLabel="Loading deliveries"
      skeletonHeight={64}
      failure="The deliveries could not be loaded."
    >
      {(data) =>
        !cursor && data.deliveries.length === 0 ? (
          <Typography>No delivery yet. Send a test to see one here.</Typography>
        ) : (
          <>
            {retryError && (
              <Alert severity="error" role="alert">
                {retryError}
              </Alert>
            )}
            <Stack component="ul" spacing={1} sx={{ p: 0, m: 0 }}>
              {data.deliveries.map((delivery) => (
                <DeliveryItem
                  key={delivery.id}
                  delivery={delivery}
                  busy={retrying}
                  onRetry={() => {
                    setRetryError(null);
                    void retry({ orgId, id: endpointId, deliveryId: delivery.id }).then(
                      (result) => {
                        if ('error' in result) {
                          setRetryError(
                            errorMessage(result.error, 'The delivery could not be sent again.'),
                          );
                        }
                      },
                    );
                  }}
                />
              ))}
            </Stack>
            {last && data.nextCursor && (
              <Button
                onClick={() => {
                  if (data.nextCursor) onMore(data.nextCursor);
                }}
              >
                Older deliveries
              </Button>
            )}
          </>
        )
      }
    </QueryContent>
  );
}

/** The delivery log of one endpoint: status, attempts, duration, request and answer; Retry. */
export function DeliveryLog({ orgId, endpointId }: { orgId: string; endpointId: string }) {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  return (
    <Stack spacing={1} component="section" aria-label="Delivery log">
      {cursors.map((cursor, index) => (
        <DeliveryPage
          key={cursor ?? 'first'}
          orgId={orgId}
          endpointId={endpointId}
          cursor={cursor}
          last={index === cursors.length - 1}
          onMore={(next) => {
            setCursors((current) => [...current, next]);
          }}
        />
      ))}
    </Stack>
  );
}

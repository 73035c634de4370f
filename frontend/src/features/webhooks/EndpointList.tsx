import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useState } from 'react';

import { QueryContent } from '../../components/QueryContent';
import { useCreateWebhookMutation, useListWebhooksQuery } from './api';
import { EndpointCard } from './EndpointCard';
import { EndpointDialog } from './EndpointDialog';
import { SecretDialog } from './SecretDialog';

/** The organization's endpoints (read again every 10 s), Add endpoint, and the secret shown once. */
export function EndpointList({ orgId, orgName }: { orgId: string; orgName: string }) {
  const query = useListWebhooksQuery(orgId, { pollingInterval: 10_000 });
  const [create, { isLoading: creating }] = useCreateWebhookMutation();
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<{ value: string; rotated: boolean } | null>(null);

  return (
    <QueryContent
      query={query}
      loadingLabel="Loading webhooks"
      skeletonHeight={120}
      failure="The webhooks could not be loaded."
    >
      {(data) => (
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
              {orgName} has no webhook endpoint yet. Add one to tell your chat, CI or on-call tools
              what happens here.
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
      )}
    </QueryContent>
  );
}

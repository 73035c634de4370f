import { baseApi, LIST } from '../../api/baseApi';
import type {
  CreatedWebhook,
  CreateWebhookRequest,
  QueuedWebhookDelivery,
  RotatedWebhookSecret,
  UpdateWebhookRequest,
  WebhookDeliveryPage,
  WebhookEndpoint,
  WebhookList,
} from '../../api/types';

const path = (orgId: string, id?: string) =>
  `/api/orgs/${encodeURIComponent(orgId)}/webhooks${id ? `/${encodeURIComponent(id)}` : ''}`;

/**
 * An organization's webhook endpoints and their delivery logs (`/api/orgs/{orgId}/webhooks`, admins).
 * The list answers the event types one may choose too: the checklist reads them from the server.
 */
export const webhooksApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    listWebhooks: build.query<WebhookList, string>({
      query: (orgId) => path(orgId),
      providesTags: [{ type: 'Webhook', id: LIST }],
    }),
    /** Adds an endpoint: the answer carries its secret, shown this once. */
    createWebhook: build.mutation<CreatedWebhook, { orgId: string; body: CreateWebhookRequest }>({
      query: ({ orgId, body }) => ({ url: path(orgId), method: 'POST', body }),
      invalidatesTags: [{ type: 'Webhook', id: LIST }],
    }),
    updateWebhook: build.mutation<
      WebhookEndpoint,
      { orgId: string; id: string; body: UpdateWebhookRequest }
    >({
      query: ({ orgId, id, body }) => ({ url: path(orgId, id), method: 'PATCH', body }),
      invalidatesTags: [{ type: 'Webhook', id: LIST }],
    }),
    deleteWebhook: build.mutation<void, { orgId: string; id: string }>({
      query: ({ orgId, id }) => ({ url: path(orgId, id), method: 'DELETE' }),
      invalidatesTags: [{ type: 'Webhook', id: LIST }],
    }),
    rotateWebhookSecret: build.mutation<RotatedWebhookSecret, { orgId: string; id: string }>({
      query: ({ orgId, id }) => ({ url: `${path(orgId, id)}/rotate-secret`, method: 'POST' }),
      invalidatesTags: [{ type: 'Webhook', id: LIST }],
    }),
    testWebhook: build.mutation<QueuedWebhookDelivery, { orgId: string; id: string }>({
      query: ({ orgId, id }) => ({ url: `${path(orgId, id)}/test`, method: 'POST' }),
      invalidatesTags: (_result, _error, { id }) => [{ type: 'WebhookDelivery', id }],
    }),
    /** One page of an endpoint's deliveries, newest first. */
    listWebhookDeliveries: build.query<
      WebhookDeliveryPage,
      { orgId: string; id: string; cursor?: string }
    >({
      query: ({ orgId, id, cursor }) => ({
        url: `${path(orgId, id)}/deliveries`,
        params: cursor ? { cursor } : undefined,
      }),
      providesTags: (_result, _error, { id }) => [{ type: 'WebhookDelivery', id }],
    }),
    retryWebhookDelivery: build.mutation<
      QueuedWebhookDelivery,
      { orgId: string; id: string; deliveryId: string }
    >({
      query: ({ orgId, id, deliveryId }) => ({
        url: `${path(orgId, id)}/deliveries/${encodeURIComponent(deliveryId)}/retry`,
        method: 'POST',
      }),
      invalidatesTags: (_result, _error, { id }) => [{ type: 'WebhookDelivery', id }],
    }),
  }),
});

export const {
  useListWebhooksQuery,
  useCreateWebhookMutation,
  useUpdateWebhookMutation,
  useDeleteWebhookMutation,
  useRotateWebhookSecretMutation,
  useTestWebhookMutation,
  useListWebhookDeliveriesQuery,
  useRetryWebhookDeliveryMutation,
} = webhooksApi;

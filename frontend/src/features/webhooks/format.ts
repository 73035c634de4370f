import type { WebhookDelivery, WebhookEndpoint, WebhookEventType } from '../../api/types';

/** What each event tells, for the checklist. */
export const EVENT_LABELS: Record<WebhookEventType, string> = {
  'app.submitted': 'An app is submitted for review',
  'app.approved': 'An app is approved',
  'app.rejected': 'An app is rejected (with the reviewer’s notes)',
  'app.published_changed': 'An app is published or unpublished',
  'app.offline': 'An app’s server goes offline',
  'app.online': 'An app’s server is back online',
  'app.key_regenerated': 'An app’s API key is regenerated',
  'member.joined': 'Someone joins the organization',
  'member.removed': 'A member is removed or leaves',
  'member.role_changed': 'A member’s role changes',
  'invitation.accepted': 'An invitation is accepted',
  'webhook.test': 'A test sent from this page',
};

const when = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The endpoint's health in a few words: disabled (and why), failing since, or its last delivery. */
export function healthText(endpoint: WebhookEndpoint): string {
  if (!endpoint.enabled) {
    switch (endpoint.disabledReason) {
      case 'GONE':
        return 'Disabled: the endpoint answered 410 Gone';
      case 'FAILING':
        return 'Disabled: its deliveries failed for three days';
      default:
        return 'Disabled';
    }
  }
  if (endpoint.failingSince) return `Failing since ${when(endpoint.failingSince)}`;
  if (endpoint.lastAttemptAt) return `Last delivery ${when(endpoint.lastAttemptAt)}: succeeded`;
  return 'No delivery yet';
}

export const eventsText = (endpoint: WebhookEndpoint): string =>
  endpoint.allEvents ? 'Every event' : endpoint.events.join(', ');

export { when as formatTime };

/** A body laid out for reading: JSON indented by two spaces, anything else (or JSON cut short) as it is. */
export function readableBody(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/**
 * What stands in the answer's place when there is no body to show: the answer had none (a 204), it was not
 * kept (a private target's answer is never read), or no answer came. `null` when there is a body.
 */
export function missingAnswerText(
  delivery: Pick<WebhookDelivery, 'attempts' | 'responseStatus' | 'responseBody'>,
): string | null {
  const status = delivery.responseStatus;
  if (status == null) return delivery.attempts === 0 ? 'Not sent yet.' : 'No answer came.';
  if (delivery.responseBody == null) {
    return `HTTP ${status}, body not kept: the endpoint is on a private address, whose answers are never read.`;
  }
  if (delivery.responseBody === '') return `HTTP ${status}, no body.`;
  return null;
}

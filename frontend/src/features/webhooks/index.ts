/** The webhooks feature as other features use it (its public file: import nothing else of it). */
export { WebhooksLinkCard } from './WebhooksLinkCard';

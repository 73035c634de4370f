import type { AuditAction, AuditEntry, AuditTargetKind } from './types';

/**
 * A label for people for every action code. Typed against the generated list: a code the server adds is a
 * type error here until it has a label.
 */
export const ACTION_LABELS: Record<AuditAction, string> = {
  'app.created': 'App registered',
  'app.updated': 'App details changed',
  'app.deleted': 'App deleted',
  'app.published': 'App submitted for review',
  'app.moved': 'App moved between organizations',
  'app.key_regenerated': 'API key regenerated',
  'app.visibility_changed': 'Sharing with the whole organization changed',
  'app.sharing_changed': 'Tester e-mail list changed',
  'app.permissions_changed': 'App permissions changed',
  'app.share_link_reset': 'Tester link replaced',
  'org.created': 'Organization created',
  'org.updated': 'Organization settings changed',
  'org.deleted': 'Organization deleted',
  'invite.sent': 'Invitation sent',
  'invite.resent': 'Invitation resent',
  'invite.rescinded': 'Invitation cancelled',
  'invite.accepted': 'Invitation accepted',
  'member.role_changed': 'Member role changed',
  'member.removed': 'Member removed',
  'member.left': 'Member left',
  'review.approved': 'Submission approved',
  'review.rejected': 'Submission rejected',
  'platform.role_granted': 'Platform role granted',
  'platform.role_revoked': 'Platform role removed',
  'platform.first_admin': 'First platform admin set up',
  'image.uploaded': 'Image uploaded',
  'image.deleted': 'Image deleted',
  'token.created': 'Access token created',
  'token.revoked': 'Access token revoked',
  'token.expired': 'Access token expired',
  'webhook.created': 'Webhook added',
  'webhook.updated': 'Webhook changed',
  'webhook.deleted': 'Webhook deleted',
  'webhook.secret_rotated': 'Webhook signing secret rotated',
  'webhook.disabled': 'Webhook disabled by the server',
};

/** Every action code, in the order above (the "Action" filter's options). */
export const ACTIONS = Object.keys(ACTION_LABELS) as AuditAction[];

/** The label of a code; the code itself for one this build does not know (a newer server). */
export const actionLabel = (action: string): string =>
  (ACTION_LABELS as Record<string, string | undefined>)[action] ?? action;

export const TARGET_KIND_LABELS: Record<AuditTargetKind, string> = {
  app: 'App',
  organization: 'Organization',
  member: 'Member',
  invitation: 'Invitation',
  image: 'Image',
  account: 'Account',
  access_token: 'Access token',
  webhook: 'Webhook',
};

/** "via token “CI deploy”" for a change made through a personal access token; nothing for a session's. */
export const viaTokenText = (entry: AuditEntry): string | undefined =>
  entry.viaToken ? `via token “${entry.viaToken}”` : undefined;

/** The new value of `field` in the entry's changes, when it is the only field that changed. */
function onlyChange(entry: AuditEntry, field: string): unknown {
  const [change, ...more] = entry.changes;
  return change && more.length === 0 && change.field === field ? change.new : undefined;
}

/**
 * What one entry did, as precisely as its recorded changes tell: sharing with the organization turned on
 * or off, the two-factor requirement turned on or off; otherwise the action's label.
 */
export function entryLabel(entry: AuditEntry): string {
  if (entry.action === 'app.visibility_changed') {
    const shared = onlyChange(entry, 'sharedWithOrganization');
    if (shared === true) return 'App shared with the whole organization';
    if (shared === false) return 'App no longer shared with the whole organization';
  }
  if (entry.action === 'org.updated') {
    const required = onlyChange(entry, 'requireTwoFactor');
    if (required === true) return 'Two-factor authentication required of members';
    if (required === false) return 'Two-factor requirement turned off';
  }
  return actionLabel(entry.action);
}

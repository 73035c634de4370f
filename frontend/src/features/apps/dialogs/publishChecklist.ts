import { checkServerUrl } from '../../../utils/url';
import type { App } from '../types';

export const PROFILE_INCOMPLETE_MESSAGE =
  'Your organization profile is incomplete. Please fill out your organization name and contact email before publishing an app.';

export interface ChecklistItem {
  id: 'https' | 'logo' | 'profile';
  label: string;
  ok: boolean;
  /** What to do when the item is not met. */
  hint: string;
}

/** The organization fields publishing needs (PRODUCT.md §4). */
export interface PublishingOrg {
  name: string;
  profile: { contactEmail?: string | null };
}

/**
 * What must hold before an app can be submitted (PRODUCT.md §9): HTTPS server, a logo, a complete profile.
 * On a portal run for local development (`keepLoopbackHttp`) a loopback `http://` server URL also passes,
 * so that an app server on the developer's machine can be submitted and monitored.
 */
export function publishChecklist(
  app: Pick<App, 'publicUrl' | 'logoURL'>,
  org: PublishingOrg | null,
  keepLoopbackHttp = false,
): ChecklistItem[] {
  const url = app.publicUrl.trim();
  const check = checkServerUrl(url, keepLoopbackHttp);
  const local = check.ok && check.value.startsWith('http://');
  return [
    {
      id: 'https',
      label: local ? 'Server URL on this machine (local development)' : 'Server URL uses HTTPS',
      ok: local || /^https:\/\/[^/\s]+/i.test(url),
      hint: 'Set an https:// server URL on the edit page.',
    },
    {
      id: 'logo',
      label: 'App logo uploaded',
      ok: app.logoURL.trim() !== '',
      hint: 'Upload a logo on the edit page.',
    },
    {
      id: 'profile',
      label: 'Organization name and contact email',
      ok: Boolean(org && org.name.trim() !== '' && org.profile.contactEmail?.trim()),
      hint: PROFILE_INCOMPLETE_MESSAGE,
    },
  ];
}

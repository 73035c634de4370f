/**
 * Every route of the portal (specification §2, route table).
 *
 * `paths` builds links; `routePatterns` holds the react-router patterns for
 * the routes that take parameters. Components never spell a route by hand.
 */

const withQuery = (path: string, query: Record<string, string | undefined>): string => {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.set(key, value);
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
};

export const paths = {
  /** Public landing page. */
  home: '/',
  /** Sign-in screen; `token` carries an organization invitation. */
  signIn: (inviteToken?: string) => withQuery('/signin', { token: inviteToken }),
  /** Aliases of the sign-in screen. */
  login: '/login',
  signUp: '/signup',
  inviteAccept: (inviteToken?: string) => withQuery('/invite/accept', { token: inviteToken }),
  dashboard: '/dashboard',
  apps: '/apps',
  appCreate: '/apps/create',
  appEdit: (packageName: string) => `/apps/${encodeURIComponent(packageName)}/edit`,
  orgSettings: (
    query: { welcome?: boolean; orgName?: string; orgId?: string; existing?: boolean } = {},
  ) =>
    withQuery('/org-settings', {
      welcome: query.welcome ? 'true' : undefined,
      orgName: query.orgName,
      orgId: query.orgId,
      existing: query.existing ? 'true' : undefined,
    }),
  members: '/members',
  /** The organization's audit log (its admins). */
  auditLog: '/audit-log',
  /** The organization's webhook endpoints and their delivery logs (its admins). */
  webhooks: '/org-settings/webhooks',
  admin: '/admin',
  /** The account's second factors and sessions. */
  accountSecurity: '/account/security',
  /** The account's personal access tokens. */
  accessTokens: '/account/tokens',
  /** Account Security, to add a second factor and then go on to `next` (a path of this site). */
  addSecondFactor: (next: string) => withQuery('/account/security', { next }),
  /** The second-factor step of sign-in; `next` is where it goes back to. */
  mfaChallenge: (next?: string) => withQuery('/signin/mfa', { next }),
  /** The one-time link that makes the first platform admin (written to the server log). */
  setupAdmin: '/setup-admin',
  /** The public tester page of a share link. */
  install: (token: string) => `/install/${encodeURIComponent(token)}`,
} as const;

/** Route patterns as react-router matches them. */
export const routePatterns = {
  home: '/',
  signIn: '/signin',
  login: '/login',
  signUp: '/signup',
  inviteAccept: '/invite/accept',
  dashboard: '/dashboard',
  apps: '/apps',
  appCreate: '/apps/create',
  appEdit: '/apps/:packageName/edit',
  orgSettings: '/org-settings',
  members: '/members',
  auditLog: '/audit-log',
  webhooks: '/org-settings/webhooks',
  admin: '/admin',
  accountSecurity: '/account/security',
  accessTokens: '/account/tokens',
  mfaChallenge: '/signin/mfa',
  setupAdmin: '/setup-admin',
  install: '/install/:token',
  notFound: '*',
} as const;

import type { PublicConfig } from './types';

/** Used while the configuration loads, when it cannot be fetched, and for missing fields. */
export const DEFAULT_PUBLIC_CONFIG: PublicConfig = {
  docsUrl: 'https://docs.mentra.glass',
  sourceUrl: 'https://github.com/Mentra-Community/MentraOS',
  exampleAppUrl: 'https://github.com/Mentra-Community/MentraOS-Cloud-Example-App',
  providers: [],
  identity: { kind: 'builtin', url: '', authUrl: '', anonKey: '' },
  keepLoopbackHttp: false,
  monitorIntervalSecs: 60,
  companionInstallUrl: null,
  passkeyOrigin: null,
  mailSent: true,
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isHttpUrl = (value: unknown): value is string => {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
};

/** Schemes a link may never have (the page makes an `href` of the companion app's install link). */
const REFUSED_SCHEMES = ['javascript:', 'data:', 'vbscript:', 'file:'];

/** A companion-app install template: a URL with a scheme (the app's own, such as `mentra:`, or https). */
const isInstallTemplate = (value: unknown): value is string => {
  if (typeof value !== 'string') return false;
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(value.trim())?.[1]?.toLowerCase();
  return scheme !== undefined && !REFUSED_SCHEMES.includes(`${scheme}:`);
};

/**
 * The companion app's install link for one app: the template's `{packageName}` and `{installUrl}` replaced
 * with their URL-encoded values (`PORTAL_COMPANION_INSTALL_URL`).
 */
export function companionInstallLink(
  template: string,
  packageName: string,
  installUrl: string,
): string {
  return template
    .replaceAll('{packageName}', encodeURIComponent(packageName))
    .replaceAll('{installUrl}', encodeURIComponent(installUrl));
}

/**
 * Reads the server's answer field by field. Links must be http(s) URLs (they
 * end up in `href`s); anything missing or malformed falls back to the default.
 */
export function normalizePublicConfig(raw: unknown): PublicConfig {
  const body = isRecord(raw) ? raw : {};
  const identity = isRecord(body.identity) ? body.identity : {};
  const providers = Array.isArray(body.providers)
    ? body.providers.filter((p): p is string => typeof p === 'string' && p.length > 0)
    : DEFAULT_PUBLIC_CONFIG.providers;

  return {
    docsUrl: isHttpUrl(body.docsUrl) ? body.docsUrl : DEFAULT_PUBLIC_CONFIG.docsUrl,
    sourceUrl: isHttpUrl(body.sourceUrl) ? body.sourceUrl : DEFAULT_PUBLIC_CONFIG.sourceUrl,
    exampleAppUrl: isHttpUrl(body.exampleAppUrl)
      ? body.exampleAppUrl
      : DEFAULT_PUBLIC_CONFIG.exampleAppUrl,
    providers,
    identity: {
      kind: identity.kind === 'hosted' ? 'hosted' : 'builtin',
      url: typeof identity.url === 'string' ? identity.url : DEFAULT_PUBLIC_CONFIG.identity.url,
      authUrl: isHttpUrl(identity.authUrl)
        ? identity.authUrl
        : isHttpUrl(identity.url)
          ? `${identity.url.replace(/\/+$/, '')}/auth/v1`
          : DEFAULT_PUBLIC_CONFIG.identity.authUrl,
      anonKey:
        typeof identity.anonKey === 'string'
          ? identity.anonKey
          : DEFAULT_PUBLIC_CONFIG.identity.anonKey,
    },
    keepLoopbackHttp: body.keepLoopbackHttp === true,
    monitorIntervalSecs:
      typeof body.monitorIntervalSecs === 'number' &&
      Number.isInteger(body.monitorIntervalSecs) &&
      body.monitorIntervalSecs >= 0
        ? body.monitorIntervalSecs
        : DEFAULT_PUBLIC_CONFIG.monitorIntervalSecs,
    companionInstallUrl: isInstallTemplate(body.companionInstallUrl)
      ? body.companionInstallUrl
      : DEFAULT_PUBLIC_CONFIG.companionInstallUrl,
    passkeyOrigin: isHttpUrl(body.passkeyOrigin)
      ? new URL(body.passkeyOrigin).origin
      : DEFAULT_PUBLIC_CONFIG.passkeyOrigin,
    // Only an explicit `false` says no e-mail goes out (while loading, the forms say "check your email").
    mailSent: body.mailSent !== false,
  };
}

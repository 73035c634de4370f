import type { PublicConfig } from '../publicConfig';

/**
 * Where passkeys work, when it is not this page's origin: a server whose public address is a loopback IP
 * address (`http://127.0.0.1:8080`, the default) serves them at `http://localhost:8080`, because browsers
 * refuse an IP address as a passkey's site. Answers that origin, or `null` when passkeys work here (or the
 * server serves none: it then says so itself).
 */
export function passkeysElsewhere(
  config: Pick<PublicConfig, 'passkeyOrigin' | 'identity'>,
  here: string = window.location.origin,
): string | null {
  if (config.identity.kind !== 'builtin' || !config.passkeyOrigin) return null;
  return config.passkeyOrigin === here ? null : config.passkeyOrigin;
}

/** A page's address at the passkeys' origin (the same path, query and fragment). */
export function atPasskeyOrigin(
  origin: string,
  location: Pick<Location, 'pathname' | 'search' | 'hash'>,
): string {
  return `${origin}${location.pathname}${location.search}${location.hash}`;
}

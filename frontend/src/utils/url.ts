/**
 * URL normalisation (specification §5), applied on blur and before saving, and the check of a server or
 * webview URL. The server applies the same rules; both run the vectors in
 * `tests/vectors/url_normalisation.json`.
 *
 * Normalising: trim white space (the byte-order mark and U+0085 included, as the server trims); an empty
 * value stays empty; upgrade `http://` to `https://`; add `https://` when there is no `http(s)://` scheme;
 * remove trailing slashes (and white space before them) after the scheme.
 */

/** The message for a URL that is not valid (specification §5). */
export const INVALID_URL = 'Please enter a valid URL';

/** Longest URL accepted, in characters. */
export const MAX_URL_LENGTH = 2048;

// `\s` is the browser's white space (with U+FEFF); the server's also has U+0085.
const LEADING_OR_TRAILING_BLANK = /^[\s\u0085]+|[\s\u0085]+$/gu;
const TRAILING_SLASHES_AND_BLANK = /[\s\u0085/]+$/u;
const BLANK = /[\s\u0085]/u;
// Controls (Cc) and Unicode's Default_Ignorable_Code_Point set: characters that show nothing, some of
// which the URL parser silently drops from a host. The server lists the same ranges.
const INVISIBLE_RANGES: readonly (readonly [number, number])[] = [
  [0x0000, 0x001f],
  [0x007f, 0x009f],
  [0x00ad, 0x00ad],
  [0x034f, 0x034f],
  [0x061c, 0x061c],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180b, 0x180f],
  [0x200b, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x206f],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xfff0, 0xfff8],
  [0x1bca0, 0x1bca3],
  [0x1d173, 0x1d17a],
  [0xe0000, 0xe0fff],
];

/** Whether a character shows nothing (a control or a default-ignorable character). */
export function isInvisible(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return INVISIBLE_RANGES.some(([low, high]) => code >= low && code <= high);
}

/** Whether a value is too long, or has white space or an invisible character, counting code points. */
function hasBadCharacters(value: string): boolean {
  let length = 0;
  for (const char of value) {
    length += 1;
    if (BLANK.test(char) || isInvisible(char)) return true;
  }
  return length > MAX_URL_LENGTH;
}

/** `value` without leading and trailing white space, as the server trims it. */
export function trimBlank(value: string): string {
  return value.replace(LEADING_OR_TRAILING_BLANK, '');
}

export function normaliseUrl(input: string): string {
  const trimmed = trimBlank(input);
  if (trimmed === '') return '';
  const scheme = /^https?:\/\//i.exec(trimmed);
  const rest = scheme ? trimmed.slice(scheme[0].length) : trimmed;
  return `https://${rest.replace(TRAILING_SLASHES_AND_BLANK, '')}`;
}

/**
 * A URL field of the app forms, normalised on blur and before saving: the server URL by
 * `normaliseServerUrl` (which may keep a loopback `http://`), the webview URL by `normaliseUrl`.
 */
export function normaliseAppUrl(
  field: 'publicUrl' | 'webviewURL',
  value: string,
  keepLoopbackHttp: boolean,
): string {
  return field === 'publicUrl' ? normaliseServerUrl(value, keepLoopbackHttp) : normaliseUrl(value);
}

/** Whether a WHATWG host name is `localhost`, in `127.0.0.0/8` or `[::1]` (the parser writes IPv4 dotted). */
function isLoopbackHostname(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/u.test(hostname);
}

/** `trimmed`, typed as `http://` on a loopback host, with `http://` kept and its trailing slashes removed. */
function keptLoopbackHttp(trimmed: string): string | null {
  const scheme = /^http:\/\//i.exec(trimmed);
  if (!scheme) return null;
  const kept = `http://${trimmed.slice(scheme[0].length).replace(TRAILING_SLASHES_AND_BLANK, '')}`;
  try {
    const url = new URL(kept);
    return url.protocol === 'http:' && isLoopbackHostname(url.hostname) ? kept : null;
  } catch {
    return null;
  }
}

/**
 * A server URL normalised: as `normaliseUrl`, except that on a portal run for local development
 * (`keepLoopbackHttp`, from `GET /api/public-config`) a URL typed as `http://` on `localhost`,
 * `127.0.0.0/8` or `[::1]` keeps its `http://`, so that an app server on the developer's machine can be
 * registered. The server applies the same rule.
 */
export function normaliseServerUrl(input: string, keepLoopbackHttp = false): string {
  if (keepLoopbackHttp) {
    const kept = keptLoopbackHttp(trimBlank(input));
    if (kept !== null) return kept;
  }
  return normaliseUrl(input);
}

/**
 * Whether the authority typed after `https://` (up to `/`, `?`, `#` or a backslash) is a plain `host` or
 * `host:port`: not empty (`https:////example.com`), no credentials (`user:pass@`), and a port of digits
 * when there is a colon (`http:/example.com` normalises to `https://http:/example.com`).
 */
function isPlainAuthority(rest: string): boolean {
  const end = rest.search(/[/?#\\]/u);
  const authority = end === -1 ? rest : rest.slice(0, end);
  if (authority === '' || authority.includes('@')) return false;
  const afterLiteral = authority.lastIndexOf(']') + 1;
  const hostAndPort = authority.slice(afterLiteral);
  const colon = hostAndPort.lastIndexOf(':');
  return colon === -1 || /^[0-9]+$/u.test(hostAndPort.slice(colon + 1));
}

export type UrlCheck = { ok: true; value: string } | { ok: false; problem: 'empty' | 'invalid' };

/**
 * Normalises and checks a server or webview URL: an absolute `https://` URL with a host, at most 2048
 * characters, with no white space or invisible characters, no second scheme, no credentials and no empty
 * or non-numeric port. `empty` is for the field to report as required (or to clear an optional URL).
 */
export function checkPublicUrl(input: string): UrlCheck {
  return checkNormalisedUrl(normaliseUrl(input));
}

/** `checkPublicUrl` for the server URL, which keeps a loopback `http://` URL when `keepLoopbackHttp`. */
export function checkServerUrl(input: string, keepLoopbackHttp = false): UrlCheck {
  return checkNormalisedUrl(normaliseServerUrl(input, keepLoopbackHttp));
}

function checkNormalisedUrl(value: string): UrlCheck {
  if (value === '') return { ok: false, problem: 'empty' };
  const scheme = value.startsWith('http://') ? 'http://' : 'https://';
  const rest = value.slice(scheme.length);
  if (hasBadCharacters(value) || rest.includes('://') || !isPlainAuthority(rest)) {
    return { ok: false, problem: 'invalid' };
  }
  try {
    const url = new URL(value);
    const allowed =
      url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHostname(url.hostname));
    if (allowed && url.hostname !== '') return { ok: true, value };
  } catch {
    // Not a URL: reported below.
  }
  return { ok: false, problem: 'invalid' };
}

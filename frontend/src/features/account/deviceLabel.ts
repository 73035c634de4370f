/**
 * A readable name for the client of a session, from its `User-Agent`: "Chrome on Linux", "Safari on
 * iPhone", "Firefox on Windows". Unknown parts read "Unknown browser" / "unknown system"; no user agent at
 * all reads "Unknown device".
 */
export function deviceLabel(userAgent: string | null | undefined): string {
  const ua = userAgent?.trim();
  if (!ua) return 'Unknown device';
  return `${browserOf(ua)} on ${systemOf(ua)}`;
}

// Order matters: Edge and Opera say "Chrome" too, Chrome says "Safari" too.
const BROWSERS: [RegExp, string][] = [
  [/\bEdg(e|A|iOS)?\//, 'Edge'],
  [/\b(OPR|Opera)\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\b(Firefox|FxiOS)\//, 'Firefox'],
  [/\b(HeadlessChrome)\//, 'Headless Chrome'],
  [/\b(Chrome|CriOS|Chromium)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
  [/^curl\//, 'curl'],
  [/^node(-fetch)?\b|\bundici\b/i, 'Node.js'],
];

const SYSTEMS: [RegExp, string][] = [
  [/\biPhone\b/, 'iPhone'],
  [/\biPad\b/, 'iPad'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b|\bX11\b/, 'Linux'],
];

function browserOf(ua: string): string {
  return BROWSERS.find(([pattern]) => pattern.test(ua))?.[1] ?? 'Unknown browser';
}

function systemOf(ua: string): string {
  return SYSTEMS.find(([pattern]) => pattern.test(ua))?.[1] ?? 'unknown system';
}

// The real things a journey needs, started and stopped by the test: an SMTP server that keeps what it
// receives (aiosmtpd), the portal's own server on a fresh SQLite database, and Debian's Chromium.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(here, '../../..');
export const outputDir = resolve(here, '../output');
const require = createRequire(import.meta.url);

/** A free TCP port on the loopback interface. */
export function freePort() {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.unref();
    server.on('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => ok(port));
    });
  });
}

/** Polls `check` until it answers something truthy, or fails with `what` after `timeoutMs`. */
export async function waitFor(what, check, timeoutMs = 20000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${last}` : ''}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** Undoes quoted-printable encoding (soft breaks and =XX bytes, read as UTF-8). */
export function decodeQuotedPrintable(text) {
  const joined = text.replace(/=\r?\n/g, '');
  const bytes = [];
  for (let i = 0; i < joined.length; i++) {
    if (joined[i] === '=' && /^[0-9A-F]{2}$/i.test(joined.slice(i + 1, i + 3))) {
      bytes.push(parseInt(joined.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(joined[i], 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** An SMTP server on a free port writing each message into a maildir. */
export async function startSmtp() {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'portal-mail-'));
  const child = spawn(
    'python3',
    ['-m', 'aiosmtpd', '-n', '-l', `127.0.0.1:${port}`, '-c', 'aiosmtpd.handlers.Mailbox', join(dir, 'mail')],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  await waitFor('the SMTP server', () => canConnect(port));
  const messages = () => {
    const folder = join(dir, 'mail', 'new');
    let files = [];
    try {
      files = readdirSync(folder).sort();
    } catch {
      return [];
    }
    return files.map((f) => decodeQuotedPrintable(readFileSync(join(folder, f), 'utf8')));
  };
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    /** Waits for the `n`-th (1-based) message to `to` and answers it with its link and code. */
    async mailTo(to, n = 1) {
      const message = await waitFor(`e-mail #${n} to ${to}`, () => {
        const mine = messages().filter((m) => new RegExp(`^To: ${to}$`, 'mi').test(m));
        return mine.length >= n ? mine[n - 1] : null;
      });
      const link = message
        .match(/https?:\/\/[^\s"<>]+\/(?:auth\/v1\/verify|invite\/accept)\?[^\s"<>]+/)?.[0]
        ?.replaceAll('&amp;', '&');
      const code = message.match(/enter this code: (\d{6})/)?.[1];
      const subject = message.match(/^Subject: (.*)$/m)?.[1];
      return { message, link, code, subject };
    },
    async stop() {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function canConnect(port) {
  return new Promise((ok) => {
    import('node:net').then(({ connect }) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        ok(true);
      });
      socket.once('error', () => ok(false));
    });
  });
}

/** The app-server binary the journeys run (built by `make test-e2e`). */
export function appServerBinary() {
  if (process.env.APP_SERVER) return process.env.APP_SERVER;
  const target = process.env.CARGO_TARGET_DIR ?? join(homedir(), '.cache/devportal/target');
  return join(target, 'debug', 'app-server');
}

/**
 * The portal on a fresh SQLite database; `env` adds configuration (e.g. SMTP_URL). `host` names the portal in
 * its public URL (`localhost` for passkeys: browsers refuse an IP address as a WebAuthn relying party).
 */
export async function startPortal(env = {}, { host = '127.0.0.1', dataDir: kept } = {}) {
  const port = await freePort();
  // `dataDir`: the folder of a portal stopped with `keepData`, to start it again (at another address).
  const dataDir = kept ?? mkdtempSync(join(tmpdir(), 'portal-data-'));
  const url = `http://${host}:${port}`;
  const logs = [];
  const child = spawn(appServerBinary(), ['serve'], {
    cwd: dataDir,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      RUST_LOG: 'info',
      PORTAL_BIND: `127.0.0.1:${port}`,
      PORTAL_PUBLIC_URL: url,
      DATABASE_URL: `sqlite://${join(dataDir, 'portal.db')}`,
      PORTAL_DATA_DIR: dataDir,
      PORTAL_FRONTEND_DIR: join(repoRoot, 'frontend', 'dist'),
      PORTAL_UPTIME_INTERVAL_SECS: '0',
      // Staff act without a second factor (as in local development) unless a test asks for `required`.
      PORTAL_STAFF_MFA: 'optional',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk) => logs.push(chunk.toString()));
  child.stderr.on('data', (chunk) => logs.push(chunk.toString()));
  const exited = new Promise((ok) => child.once('exit', ok));
  await waitFor(`the portal at ${url} (logs: ${logs.join('').slice(-2000)})`, async () => {
    if (child.exitCode !== null) throw new Error(`app-server exited: ${logs.join('')}`);
    const response = await fetch(`http://127.0.0.1:${port}/healthz`);
    return response.ok;
  });
  return {
    url,
    /** The SQLite file, for tests that must age stored rows (an expired invitation). */
    databasePath: join(dataDir, 'portal.db'),
    dataDir,
    logs: () => logs.join(''),
    /** Stops the server; `keepData` leaves its database and images for a new `startPortal`. */
    async stop({ keepData = false } = {}) {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000).unref())]);
      if (child.exitCode === null) child.kill('SIGKILL');
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Debian's Chromium, headless. */
export async function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** Writes a screenshot of the page under tests/e2e/output/. */
export async function screenshot(page, name) {
  mkdirSync(outputDir, { recursive: true });
  await page.screenshot({ path: join(outputDir, `${name}.png`), fullPage: true });
}

/**
 * Waits until the page is still: no CSS transition or animation running, no dialog, menu or backdrop part-way
 * through fading and every open dialog fully shown, for 100 ms. A dialog that has just been asked to open may not
 * have begun its transition yet, so "no transition running" alone is not enough. (The predicate used to answer a
 * promise, which Playwright takes as a truthy answer at once: the scans ran on half-faded dialogs when the
 * machine was slow.)
 */
export async function settled(page) {
  // The predicate is synchronous: the page counts as still once nothing has moved over two polls (100 ms).
  await page.waitForFunction(
    () => {
      // A dialog that has just opened is still at opacity 0 before its fade starts: it must be fully shown
      // (an axe scan of a half-faded dialog measures washed-out colours).
      const shown = [
        ...document.querySelectorAll('.MuiModal-root:not(.MuiModal-hidden) .MuiDialog-container'),
      ].every((el) => Number(getComputedStyle(el).opacity) === 1);
      const still =
        shown &&
        // Endless ones (a spinner, a skeleton's pulse) never end: only those that do are waited for.
        document
          .getAnimations()
          .every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity) &&
        [
          ...document.querySelectorAll(
            '.MuiBackdrop-root, .MuiDialog-container, .MuiPopover-paper, .MuiMenu-paper, .MuiSnackbar-root > *',
          ),
        ].every((el) => {
          const opacity = Number(getComputedStyle(el).opacity);
          return opacity === 0 || opacity === 1;
        });
      if (!still) {
        window.__stillSince = undefined;
        return false;
      }
      window.__stillSince ??= performance.now();
      return performance.now() - window.__stillSince >= 100;
    },
    undefined,
    { polling: 50 },
  );
}

/** Runs axe-core in the page once it is still; answers the serious and critical violations (none is the goal). */
export async function seriousA11yViolations(page) {
  await settled(page);
  const source = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated through the DevTools protocol rather than added as an inline script tag: a page whose
  // Content-Security-Policy is kept in force (as a person's browser keeps it) would refuse the tag.
  if (!(await page.evaluate(() => typeof window.axe !== 'undefined'))) await page.evaluate(source);
  const result = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    return await axe.run(document, { resultTypes: ['violations'] });
  });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Keeps a journey's logs when it fails. */
export function saveLogs(name, text) {
  mkdirSync(outputDir, { recursive: true });
  writeFileSync(join(outputDir, `${name}.log`), text);
}

/** The local OpenID Connect provider of tests/oidc-mock (auto-approving; its user is mock@example.com). */
export async function startOidcProvider() {
  const child = spawn('node', [join(repoRoot, 'tests', 'oidc-mock', 'server.js'), '0'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const issuer = await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('the OIDC provider did not start')), 20000);
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk.toString();
      const ready = text.match(/READY (\S+)/);
      if (ready) {
        clearTimeout(timer);
        ok(ready[1]);
      }
    });
    child.once('exit', (code) => fail(new Error(`the OIDC provider exited (${code})`)));
  });
  return {
    issuer,
    async stop() {
      child.stdin.end();
      child.kill();
    },
  };
}

/** A storage adapter for auth-js that keeps everything in memory (one per client: no shared session). */
export function memoryStorage() {
  const items = new Map();
  return {
    items,
    getItem: (key) => (items.has(key) ? items.get(key) : null),
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

let clientCount = 0;

/**
 * `fetch` with a cookie jar, as a browser keeps one: what the identity service sets (the sign-up's browser
 * cookie) goes back with the next requests to it. Without it, confirming a sign-up installs no password.
 */
export function cookieFetch() {
  const jar = new Map();
  const withCookies = async (input, init = {}) => {
    const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
    if (jar.size > 0) headers.set('cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await fetch(input, { ...init, headers });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const gone = value === '' || attributes.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (gone) jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  };
  return { jar, fetch: withCookies };
}

/**
 * A real `@supabase/auth-js` client of the portal's built-in identity service, as the browser's supabase-js
 * builds it (anon key as `apikey` and bearer), with its own in-memory storage and no timers.
 * `flowType` is `'implicit'` for e-mail links and `'pkce'` for provider sign-in.
 */
export async function authClient(portal, { flowType = 'implicit' } = {}) {
  const { GoTrueClient } = await import('@supabase/auth-js');
  const storage = memoryStorage();
  const storageKey = `sb-portal-auth-token-${++clientCount}`;
  const browser = cookieFetch();
  const client = new GoTrueClient({
    fetch: browser.fetch,
    url: `${portal.url}/auth/v1`,
    headers: { apikey: 'built-in', Authorization: 'Bearer built-in' },
    storageKey,
    storage,
    flowType,
    autoRefreshToken: false,
    persistSession: true,
    detectSessionInUrl: false,
    // `mfa.recoveryCodes` is behind this flag in auth-js; the portal's own client turns it on too.
    experimental: { recoveryCodes: true },
  });
  return Object.assign(client, { storage, storageKey, browserFetch: browser.fetch });
}

/** The key/value pairs of a URL's fragment (`#a=1&b=2`), or of its query when `part` is `'search'`. */
export function urlParams(location, part = 'hash') {
  const url = new URL(location);
  return Object.fromEntries(new URLSearchParams(url[part].slice(1)));
}

/**
 * Runs one SQL statement with `params` on the portal's SQLite file (through Python's sqlite3 module, which
 * Debian's python3 carries); answers the number of rows changed. For tests that must age stored rows, such
 * as an invitation past its expiry, which no API may do.
 */
export function sqliteRun(databasePath, sql, params = []) {
  const script =
    'import json, sqlite3, sys\n' +
    'db = sqlite3.connect(sys.argv[1], timeout=10)\n' +
    'changed = db.execute(sys.argv[2], json.loads(sys.argv[3])).rowcount\n' +
    'db.commit()\n' +
    'print(changed)\n';
  const out = execFileSync('python3', ['-c', script, databasePath, sql, JSON.stringify(params)], {
    encoding: 'utf8',
  });
  return Number(out.trim());
}

// The dashboard's layout shift as a signed-in user opens it cold: Chromium's own `layout-shift` entries
// (PerformanceObserver, what CLS adds up) at a desktop and a phone width, the elements that moved, and
// Lighthouse's CLS of the same page (its mobile emulation, as `make bench` runs it). A screenshot of each
// width goes to target/bench/ (or --shots DIR).
//
//   node bench/cls.mjs [--server PATH] [--frontend DIR] [--runs N] [--shots DIR] [--member]
//
// With --member the dashboard is opened by a member (not an admin) of an organization whose profile is
// incomplete: the banner then names the admin to ask once the organization's member list has come.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { option, outDir, startServer } from './lib.mjs';

const member = process.argv.includes('--member');
const PASSWORD = 'benchmarks measure the signed-in dashboard';

const RUNS = Number(option('--runs', 3));
const shots = option('--shots', outDir);
const WIDTHS = [
  { name: 'desktop', width: 1280, height: 800, mobile: false },
  { name: 'phone', width: 390, height: 844, mobile: true },
];

/** Collects the page's layout shifts from its first paint on (the observer is installed before any script). */
function observeShifts() {
  window.__shifts = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.hadRecentInput) continue;
      const describe = (node) => {
        if (!node || !node.nodeName) return '?';
        const el = node.nodeType === 1 ? node : node.parentElement;
        if (!el) return node.nodeName;
        const text = (el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 40);
        return `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? '.' + el.className.split(' ')[0] : ''} "${text}"`;
      };
      window.__shifts.push({
        value: entry.value,
        at: Math.round(entry.startTime),
        sources: (entry.sources || []).map((s) => ({
          node: describe(s.node),
          from: [s.previousRect.y, s.previousRect.height].map(Math.round),
          to: [s.currentRect.y, s.currentRect.height].map(Math.round),
        })),
      });
    }
  }).observe({ type: 'layout-shift', buffered: true });
}

/** An account made through the API: its core token. */
async function apiAccount(url, email) {
  const signedUp = await fetch(`${url}/auth/v1/signup`, {
    method: 'POST',
    headers: { apikey: 'built-in', 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  }).then((r) => r.json());
  const exchanged = await fetch(`${url}/api/auth/exchange-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ supabaseToken: signedUp.access_token }),
  }).then((r) => r.json());
  return exchanged.coreToken;
}

/**
 * A member of Ada's organization (whose profile has no contact e-mail), signed in through the sign-in page:
 * Ada invites the address, the new account accepts before it has any organization of its own.
 */
async function signInAsMember(page, url, database) {
  const stamp = Date.now();
  const ada = await apiAccount(url, `ada-${stamp}@example.com`);
  const auth = { authorization: `Bearer ${ada}`, 'content-type': 'application/json' };
  const org = await fetch(`${url}/api/orgs`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Acme Labs' }) })
    .then((r) => r.json());
  const email = `member-${stamp}@example.com`;
  await fetch(`${url}/api/orgs/${org.data.id}/members`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ email, role: 'member' }),
  });
  const link = execFileSync('python3', [
    '-c',
    'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select link from email_outbox where recipient=? order by created_at desc", (sys.argv[2],)).fetchone()[0])',
    database,
    email,
  ]).toString().trim();
  const token = new URL(link).searchParams.get('token');
  const bob = await apiAccount(url, email);
  const accepted = await fetch(`${url}/api/orgs/accept/${token}`, { method: 'POST', headers: { authorization: `Bearer ${bob}` } });
  if (!accepted.ok) throw new Error(`accepting the invitation: ${accepted.status} ${await accepted.text()}`);
  await page.goto(`${url}/signin`);
  await page.locator('button::-p-text(Continue with Email)').click();
  await page.locator('[role="dialog"] input[type="email"]').fill(email);
  await page.locator('[role="dialog"] input[type="password"]').fill(PASSWORD);
  await page.locator('[role="dialog"] button[type="submit"]').click();
  await page.waitForFunction(() => location.pathname === '/dashboard' && document.querySelector('h1'), {
    timeout: 30_000,
  });
}

async function signUp(page, url) {
  await page.goto(`${url}/signup`);
  await page.locator('button::-p-text(Continue with Email)').click();
  await page.locator('[role="dialog"] input[type="email"]').fill(`cls-${Date.now()}@example.com`);
  await page.locator('[role="dialog"] input[type="password"]').fill(PASSWORD);
  await page.locator('[role="dialog"] button::-p-text(Create account)').click();
  await page.waitForFunction(() => location.pathname === '/dashboard' && document.querySelector('h1'), {
    timeout: 30_000,
  });
}

const { default: puppeteer } = await import('puppeteer-core');
const { default: lighthouse } = await import('lighthouse');
const data = mkdtempSync(join(tmpdir(), 'portal-cls-'));
const database = join(data, 'portal.db');
const started = await startServer(`sqlite://${database}`, { PORTAL_MAIL_WORKER: 'false' });
const browser = await puppeteer.launch({
  executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu'],
});
mkdirSync(shots, { recursive: true });
try {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  if (member) await signInAsMember(page, started.url, database);
  else await signUp(page, started.url);
  await page.evaluateOnNewDocument(observeShifts);
  for (const view of WIDTHS) {
    await page.setViewport({ width: view.width, height: view.height, isMobile: view.mobile, deviceScaleFactor: 1 });
    const totals = [];
    for (let run = 0; run < RUNS; run += 1) {
      const session = await page.createCDPSession();
      await session.send('Network.clearBrowserCache');
      await session.detach();
      await page.goto(`${started.url}/dashboard`, { waitUntil: 'networkidle0' });
      await new Promise((done) => setTimeout(done, 1500));
      const shifts = await page.evaluate(() => window.__shifts);
      const total = shifts.reduce((sum, s) => sum + s.value, 0);
      totals.push(total);
      console.log(`${view.name} ${view.width}px run ${run + 1}: CLS ${total.toFixed(4)}`);
      for (const shift of shifts) {
        console.log(`  ${shift.value.toFixed(4)} at ${shift.at} ms: ${shift.sources.map((s) => `${s.node} y/h ${s.from} -> ${s.to}`).join('; ')}`);
      }
    }
    console.log(`${view.name}: CLS per run ${totals.map((t) => t.toFixed(4)).join(', ')}`);
    await page.screenshot({ path: join(shots, `dashboard-${member ? 'member-' : ''}${view.width}.png`), fullPage: true });
  }
  // Lighthouse (mobile emulation, simulated slow network), signed in as above.
  await page.setViewport(null);
  const values = [];
  for (let run = 0; run < RUNS; run += 1) {
    const session = await page.createCDPSession();
    await session.send('Network.clearBrowserCache');
    await session.detach();
    const result = await lighthouse(
      `${started.url}/dashboard`,
      { output: 'json', logLevel: 'error', onlyCategories: ['performance'], disableStorageReset: true },
      undefined,
      page,
    );
    const report = JSON.parse(result.report);
    const cls = report.audits['cumulative-layout-shift'];
    values.push(cls.numericValue);
    const items = report.audits['layout-shifts']?.details?.items ?? [];
    console.log(
      `Lighthouse run ${run + 1}: CLS ${cls.numericValue.toFixed(4)}, score ${Math.round(report.categories.performance.score * 100)}; ` +
        items.map((i) => `${i.score?.toFixed?.(4)} ${i.node?.snippet?.slice(0, 60) ?? ''}`).join(' | '),
    );
  }
  console.log(`Lighthouse CLS per run: ${values.map((v) => v.toFixed(4)).join(', ')}`);
  await context.close();
} finally {
  await browser.close();
  await started.stop();
}

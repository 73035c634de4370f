// The web UI's figures: JavaScript per route (from Vite's manifest) and Lighthouse's performance score.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { frontend, KB, option, outDir, record, short, startServer } from './lib.mjs';

/** The files of data (not code) the web UI loads on demand: the password-strength dictionaries. */
const DATA_CHUNK = /node_modules\/@zxcvbn-ts\/language-/;

/** JavaScript the first route loads, and what each lazy route adds, gzipped, from Vite's manifest. */
export function bundleFigures() {
  const manifestPath = join(frontend, '.vite/manifest.json');
  if (!existsSync(manifestPath)) {
    record({ figure: 'web UI bundle', target: '—', measured: undefined, note: `no ${manifestPath}` });
    return;
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const gz = (file) => gzipSync(readFileSync(join(frontend, file)), { level: 9 }).length;
  const closure = (key, into) => {
    const chunk = manifest[key];
    if (!chunk || into.has(chunk.file)) return into;
    into.add(chunk.file);
    for (const imported of chunk.imports ?? []) closure(imported, into);
    return into;
  };
  const [entryKey] = Object.entries(manifest).find(([, chunk]) => chunk.isEntry) ?? [];
  const initial = closure(entryKey, new Set());
  const initialBytes = [...initial].filter((f) => f.endsWith('.js')).reduce((sum, f) => sum + gz(f), 0);
  record({
    figure: 'web UI: JavaScript loaded by the first route, gzipped',
    target: '≤ 180 KB',
    limit: 180 * KB,
    measured: initialBytes,
    unit: 'bytes',
  });
  // A lazy chunk imported only from other lazy chunks (a tab of a page) loads after them: what it adds is
  // what they have not loaded yet. One imported from the first route's code adds what that does not hold.
  const importers = new Map();
  for (const [key, chunk] of Object.entries(manifest)) {
    for (const imported of chunk.dynamicImports ?? []) importers.set(imported, [...(importers.get(imported) ?? []), key]);
  }
  // A page rendered inside the signed-in layout is reached through it: the router loads the layout with it,
  // and once one signed-in page is open, the next one adds only what the layout does not hold. Such a page
  // is one that imports the `signed-in` chunk (frontend/vite.config.ts: code that only the layout and its
  // pages use); what it adds is measured on top of the layout, which is measured as a route of its own.
  const layoutKey = 'src/features/layout/AppLayout.tsx';
  const signedIn = Object.keys(manifest).find((key) => manifest[key].name === 'signed-in');
  const withLayout = manifest[layoutKey] ? new Set([...initial, ...closure(layoutKey, new Set())]) : initial;
  const loadedBefore = (key, seen = new Set()) => {
    const from = (importers.get(key) ?? []).filter((importer) => !seen.has(importer));
    if (from.length === 0 || from.some((importer) => initial.has(manifest[importer].file))) {
      const nested = key !== layoutKey && signedIn && manifest[key].imports?.includes(signedIn);
      return nested ? withLayout : initial;
    }
    seen.add(key);
    const sets = from.map((importer) => new Set([...loadedBefore(importer, seen), ...closure(importer, new Set())]));
    return new Set([...sets[0]].filter((file) => sets.every((set) => set.has(file))));
  };
  // The password-strength dictionaries are data, not code: word lists that frontend/src/features/auth/
  // strengthLoader.ts loads (each a file of its own, all at once) when a new-password field gets focus.
  // They are reported on their own, and no route may load them with its code.
  const isData = (key) => DATA_CHUNK.test(key);
  const data = Object.entries(manifest).filter(([key, chunk]) => chunk.isDynamicEntry && isData(key));
  const dataFiles = new Set(data.map(([, chunk]) => chunk.file));
  const dataBytes = data.reduce((sum, [key]) => sum + [...closure(key, new Set())].reduce((n, f) => n + gz(f), 0), 0);
  const staticallyLoading = Object.entries(manifest)
    .filter(([key]) => !isData(key))
    .filter(([key]) => [...closure(key, new Set())].some((file) => dataFiles.has(file)))
    .map(([key]) => key);
  record({
    figure: `web UI: the password-strength dictionaries, gzipped (data: ${data.length} files, loaded in parallel when a new-password field gets focus)`,
    target: 'out of every route',
    limit: 0,
    measured: staticallyLoading.length,
    unit: 'routes loading them',
    note: `${(dataBytes / KB).toFixed(1)} KB gzipped in ${data.length} files (${data.map(([key]) => key.split('/').pop()).join(', ')})${staticallyLoading.length ? `; loaded with the code of ${staticallyLoading.join(', ')}` : ''}`,
  });
  const lazy = Object.entries(manifest).filter(([key, chunk]) => chunk.isDynamicEntry && !isData(key));
  const routes = lazy
    .map(([key, chunk]) => {
      const before = loadedBefore(key);
      const added = [...closure(key, new Set())].filter((f) => f.endsWith('.js') && !before.has(f));
      return { name: (chunk.src ?? key).replace(/^src\//, ''), bytes: added.reduce((sum, f) => sum + gz(f), 0) };
    })
    .sort((a, b) => b.bytes - a.bytes);
  writeFileSync(
    join(outDir, 'lazy-routes.txt'),
    routes.map((route) => `${(route.bytes / KB).toFixed(1).padStart(6)} KB  ${route.name}\n`).join(''),
  );
  const largest = routes[0] ?? { name: '—', bytes: 0 };
  const over = routes.filter((route) => route.bytes > 50 * KB);
  record({
    figure: `web UI: the largest lazy route (${lazy.length} routes; largest ${largest.name})`,
    target: '≤ 50 KB each',
    limit: 50 * KB,
    measured: largest.bytes,
    unit: 'bytes',
    note: over.length
      ? `over 50 KB: ${over.map((route) => `${route.name} ${(route.bytes / KB).toFixed(1)} KB`).join(', ')}`
      : 'every lazy route is within 50 KB',
  });
}

/** A page of the portal Lighthouse measures, and how the browser is prepared for it. */
const PAGES = [
  { path: '/', file: 'lighthouse-home.json' },
  { path: '/signin', file: 'lighthouse-signin.json' },
  // Five runs (the lowest is the figure): its score moved between 93 and 96 over runs of one build.
  { path: '/dashboard', file: 'lighthouse-dashboard.json', signedIn: true, runs: 5 },
];

/** `--pages /dashboard,/signin` measures those pages only. */
const onlyPages = option('--pages', '')
  .split(',')
  .filter((p) => p.length > 0);

/**
 * Lighthouse's performance score (its default mobile emulation and simulated slow network) of the landing
 * page, the sign-in page and the dashboard. Lighthouse drives a page of a Chromium started here; the
 * dashboard is measured in a browser that has signed up (the server without SMTP confirms the address at
 * once, so the sign-up dialog ends on the dashboard): Lighthouse then keeps the site's storage (the session)
 * and only the HTTP cache is emptied, so the page loads cold but signed in.
 */
export async function lighthouseFigures() {
  const { default: lighthouse } = await import('lighthouse');
  const { default: puppeteer } = await import('puppeteer-core');
  const started = await startServer();
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  const pages = short
    ? PAGES.slice(0, 1)
    : PAGES.filter(({ path }) => onlyPages.length === 0 || onlyPages.includes(path));
  try {
    for (const { path, file, signedIn, runs = 1 } of pages) {
      const context = await browser.createBrowserContext();
      try {
        const page = await context.newPage();
        if (signedIn) await signUp(page, started.url);
        const run = async () => {
          if (signedIn) {
            const session = await page.createCDPSession();
            await session.send('Network.clearBrowserCache');
            await session.detach();
          }
          const result = await lighthouse(
            `${started.url}${path}`,
            {
              output: 'json',
              logLevel: 'error',
              onlyCategories: ['performance'],
              disableStorageReset: Boolean(signedIn),
            },
            undefined,
            page,
          );
          const report = JSON.parse(result.report);
          if (report.runtimeError) throw new Error(`${report.runtimeError.code}: ${report.runtimeError.message}`);
          if (report.categories.performance.score === null) throw new Error('no performance score');
          return report;
        };
        const reports = [];
        for (let i = 0; i < runs; i += 1) {
          let report;
          try {
            report = await run();
          } catch (error) {
            // Lighthouse sometimes fails to record the page load's trace (NO_NAVSTART) and asks to be run
            // again: once more, then the failure stands.
            console.warn(`lighthouse ${path} failed once (${String(error.message ?? error).split('\n')[0]}); running it again`);
            report = await run();
          }
          if (signedIn && !new URL(report.finalDisplayedUrl).pathname.startsWith(path)) {
            throw new Error(`Lighthouse ended on ${report.finalDisplayedUrl}, not ${path}: the session was lost`);
          }
          reports.push(report);
        }
        // The figure is the lowest run (its report is the one kept), the others are in the note.
        const scoreOf = (r) => r.categories.performance.score;
        const report = reports.reduce((low, r) => (scoreOf(r) < scoreOf(low) ? r : low));
        writeFileSync(join(outDir, file), JSON.stringify(report, null, 1));
        const audits = report.audits;
        const metrics = ['first-contentful-paint', 'largest-contentful-paint', 'total-blocking-time']
          .map((k) => `${audits[k].title} ${audits[k].displayValue}`)
          .join('; ');
        if (signedIn) {
          // The layout shift of the signed-in page as its organizations and notices arrive: the highest run.
          const shifts = reports.map((r) => r.audits['cumulative-layout-shift'].numericValue);
          record({
            figure: `Lighthouse cumulative layout shift of ${path} (highest of ${runs} runs)`,
            target: '≤ 0.02',
            limit: 0.02,
            measured: Math.max(...shifts),
            unit: 'CLS',
            note: `runs ${shifts.map((v) => v.toFixed(3)).join(', ')}; a member's banner is measured by bench/cls.mjs --member`,
          });
        }
        record({
          figure:
            runs > 1
              ? `Lighthouse performance score of ${path} (lowest of ${runs} runs)`
              : `Lighthouse performance score of ${path}`,
          target: '≥ 95',
          limit: 0.95,
          better: 'higher',
          measured: scoreOf(report),
          unit: 'score',
          note:
            runs > 1
              ? `runs ${reports.map((r) => Math.round(scoreOf(r) * 100)).join(', ')}; the lowest: ${metrics}`
              : metrics,
        });
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
    await started.stop();
  }
}

/** Signs up a new account through the sign-up page's e-mail dialog and waits for the dashboard. */
async function signUp(page, url) {
  await page.goto(`${url}/signup`);
  await page.locator('button::-p-text(Continue with Email)').click();
  await page.locator('[role="dialog"] input[type="email"]').fill(`bench-${Date.now()}@example.com`);
  await page.locator('[role="dialog"] input[type="password"]').fill('benchmarks measure the signed-in dashboard');
  await page.locator('[role="dialog"] button::-p-text(Create account)').click();
  await page.waitForFunction(() => location.pathname === '/dashboard' && document.querySelector('h1'), {
    timeout: 30_000,
  });
}

// The web UI's figures: JavaScript per route (from Vite's manifest) and Lighthouse's performance score.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { frontend, here, KB, outDir, record, short, startServer } from './lib.mjs';

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
  const lazy = Object.entries(manifest).filter(([, chunk]) => chunk.isDynamicEntry);
  let largest = { name: '—', bytes: 0 };
  for (const [key, chunk] of lazy) {
    const added = [...closure(key, new Set())].filter((f) => f.endsWith('.js') && !initial.has(f));
    const bytes = added.reduce((sum, f) => sum + gz(f), 0);
    if (bytes > largest.bytes) largest = { name: chunk.src ?? key, bytes };
  }
  record({
    figure: `web UI: the largest lazy route (${lazy.length} routes; largest ${largest.name.replace(/^src\//, '')})`,
    target: '≤ 50 KB each',
    limit: 50 * KB,
    measured: largest.bytes,
    unit: 'bytes',
  });
}

export async function lighthouseFigures() {
  const started = await startServer();
  const pages = short ? ['/'] : ['/', '/signin'];
  try {
    for (const page of pages) {
      const out = join(outDir, `lighthouse${page === '/' ? '-home' : page.replaceAll('/', '-')}.json`);
      const run = () =>
        execFileSync(
          join(here, 'node_modules/.bin/lighthouse'),
          [
            `${started.url}${page}`,
            '--only-categories=performance',
            '--output=json',
            `--output-path=${out}`,
            '--chrome-flags=--headless=new --no-sandbox --disable-gpu',
            '--quiet',
          ],
          { stdio: 'pipe', env: { ...process.env, CHROME_PATH: process.env.CHROME_PATH ?? '/usr/bin/chromium' } },
        );
      try {
        run();
      } catch (error) {
        // Lighthouse sometimes fails to record the page load's trace (NO_NAVSTART) and asks to be run again:
        // once more, then the failure stands.
        console.warn(`lighthouse ${page} failed once (${String(error.stderr ?? error).trim().split('\n')[0]}); running it again`);
        run();
      }
      const report = JSON.parse(readFileSync(out, 'utf8'));
      const audits = report.audits;
      record({
        figure: `Lighthouse performance score of ${page}`,
        target: '≥ 95',
        limit: 0.95,
        better: 'higher',
        measured: report.categories.performance.score,
        unit: 'score',
        note: ['first-contentful-paint', 'largest-contentful-paint', 'total-blocking-time']
          .map((k) => `${audits[k].title} ${audits[k].displayValue}`)
          .join('; '),
      });
    }
  } finally {
    await started.stop();
  }
  record({
    figure: 'Lighthouse performance score of /dashboard',
    target: '≥ 95',
    measured: undefined,
    note: 'not measured yet: needs a signed-in browser profile handed to Lighthouse',
  });
}


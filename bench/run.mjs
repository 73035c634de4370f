// `make bench`: measures the portal's figures next to their targets and writes target/bench/report.md and
// report.json. `--short` (run by `make test`) measures the same figures with fewer repetitions and one
// Lighthouse page, so that the harness cannot rot; no test asserts a figure.
//
//   node bench/run.mjs [--short] [--server PATH] [--frontend DIR]

import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, cpus, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const args = process.argv.slice(2);
const short = args.includes('--short');
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
const targetDir = process.env.CARGO_TARGET_DIR ?? join(process.env.HOME ?? '/root', '.cache/devportal/target');
const server = resolve(option('--server', join(targetDir, 'release/app-server')));
const frontend = resolve(option('--frontend', join(root, 'frontend/dist')));
const outDir = join(root, 'target/bench');
const KB = 1024;
const MB = 1024 * 1024;

const rows = [];
/** One line of the report. `measured`/`reference` are numbers in `unit`; `better` says which way is good. */
function record({ figure, target, limit, measured, unit, better = 'lower', reference, note }) {
  const met =
    measured === undefined ? undefined : better === 'lower' ? measured <= limit : measured >= limit;
  rows.push({ figure, target, limit, measured, unit, better, reference, note, met });
  const shown = measured === undefined ? 'not measured' : `${format(measured, unit)}`;
  console.log(`${met === undefined ? '·' : met ? '✓' : '✗'} ${figure}: ${shown} (target ${target})`);
}

function format(value, unit) {
  if (value === undefined || value === null) return '—';
  if (unit === 'bytes') return value >= MB ? `${(value / MB).toFixed(1)} MB` : `${(value / KB).toFixed(1)} KB`;
  if (unit === 'ms') return `${value.toFixed(value < 10 ? 2 : 0)} ms`;
  if (unit === 'score') return `${Math.round(value * 100)}`;
  return `${value} ${unit}`;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/** Starts the server on a fresh database; answers its process, URL and how long it took to answer. */
async function startServer(databaseUrl, extraEnv = {}) {
  const port = await freePort();
  const data = mkdtempSync(join(tmpdir(), 'portal-bench-'));
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(server, ['serve'], {
    env: {
      PATH: process.env.PATH,
      PORTAL_BIND: `127.0.0.1:${port}`,
      PORTAL_PUBLIC_URL: url,
      PORTAL_FRONTEND_DIR: frontend,
      PORTAL_DATA_DIR: data,
      DATABASE_URL: databaseUrl ?? `sqlite://${data}/portal.db`,
      PORTAL_UPTIME_INTERVAL_SECS: '60',
      ...extraEnv,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr.on('data', (chunk) => (log += chunk));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server stopped: ${log}`);
    try {
      const answer = await fetch(`${url}/healthz`);
      if (answer.ok) break;
    } catch {
      // Not listening yet.
    }
    if (performance.now() - started > 30_000) throw new Error(`no answer in 30 s: ${log}`);
    await sleep(5);
  }
  const startupMs = performance.now() - started;
  const stop = async () => {
    child.kill('SIGTERM');
    await new Promise((done) => (child.exitCode !== null ? done() : child.once('exit', done)));
    rmSync(data, { recursive: true, force: true });
  };
  return { child, url, startupMs, stop };
}

function rssBytes(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
  return kb * KB;
}

/** A fresh, empty PostgreSQL database on the machine's server, or null when there is none. */
function freshPostgres() {
  const base = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432';
  const name = `bench_${process.pid}_${Date.now()}`;
  try {
    execFileSync('psql', [`${base}/postgres`, '-qAt', '-c', `CREATE DATABASE ${name}`], { stdio: 'pipe' });
  } catch {
    return null;
  }
  return {
    url: `${base}/${name}`,
    drop: () => {
      try {
        execFileSync('psql', [`${base}/postgres`, '-qAt', '-c', `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`], {
          stdio: 'pipe',
        });
      } catch {
        // Left for the machine's owner; the name says what it is.
      }
    },
  };
}

async function serverFigures() {
  const runs = short ? 1 : 5;
  const sqlite = [];
  let idle;
  for (let i = 0; i < runs; i += 1) {
    const started = await startServer();
    sqlite.push(started.startupMs);
    if (i === 0) {
      await sleep(short ? 500 : 2000);
      idle = rssBytes(started.child.pid);
    }
    await started.stop();
  }
  record({
    figure: 'server idle RSS after start (SQLite)',
    target: '≤ 30 MB',
    limit: 30 * MB,
    measured: idle,
    unit: 'bytes',
  });
  record({
    figure: `cold start incl. migrations of an empty SQLite database (median of ${runs})`,
    target: '≤ 1 s',
    limit: 1000,
    measured: median(sqlite),
    unit: 'ms',
  });
  if (short) return;
  const postgres = [];
  for (let i = 0; i < runs; i += 1) {
    const database = freshPostgres();
    if (!database) break;
    try {
      const started = await startServer(database.url);
      postgres.push(started.startupMs);
      await started.stop();
    } finally {
      database.drop();
    }
  }
  record({
    figure: `cold start incl. migrations of an empty PostgreSQL database (median of ${runs})`,
    target: '≤ 1 s',
    limit: 1000,
    measured: postgres.length ? median(postgres) : undefined,
    unit: 'ms',
    note: postgres.length ? undefined : 'no PostgreSQL on 127.0.0.1:5432',
  });
}

/** JavaScript the first route loads, and what each lazy route adds, gzipped, from Vite's manifest. */
function bundleFigures() {
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

async function lighthouseFigures() {
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

function pendingFigures() {
  const later = [
    ['authenticated GET /api/dev/apps, 100 apps, 64 connections (SQLite, PostgreSQL)', '≥ 50% of plain actix-web; p99 ≤ 5 ms', 'the apps API'],
    ['the same call against a plain Express endpoint', '≥ 10× its requests/s', 'the apps API'],
    ['mixed workload at 64 connections (both databases)', '0 errors; p99 ≤ 20 ms', 'the apps API'],
    ['uptime monitor, 100,000 apps over 1,000 loopback host:port pairs', 'every app within 60 s; peak RSS ≤ 200 MB', 'the monitor harness'],
    ['month view for 10,000 apps with a full month of rollups', '≤ 200 ms; ≤ 1 KB per app-day', 'the uptime API'],
  ];
  for (const [figure, target, needs] of later) {
    record({ figure, target, measured: undefined, note: `not measured yet: needs ${needs}` });
  }
}

function writeReport() {
  mkdirSync(outDir, { recursive: true });
  const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 1024 ** 3).toFixed(0)} GiB`;
  const lines = [
    `# Benchmark report${short ? ' (short mode)' : ''}`,
    '',
    `Machine: ${machine}. Server: \`${server}\`. Date: ${new Date().toISOString()}.`,
    '',
    '| figure | target | measured | reference | ratio | met |',
    '|---|---|---|---|---|---|',
    ...rows.map((row) => {
      const ratio =
        row.measured !== undefined && row.reference ? (row.measured / row.reference).toFixed(2) : '—';
      const met = row.met === undefined ? '—' : row.met ? 'yes' : '**no**';
      const measured = row.measured === undefined ? `— (${row.note ?? 'not measured'})` : format(row.measured, row.unit);
      return `| ${row.figure} | ${row.target} | ${measured} | ${row.reference ? format(row.reference, row.unit) : '—'} | ${ratio} | ${met} |`;
    }),
    '',
    ...rows.filter((r) => r.note && r.measured !== undefined).map((r) => `- ${r.figure}: ${r.note}`),
    '',
  ];
  writeFileSync(join(outDir, 'report.md'), lines.join('\n'));
  writeFileSync(join(outDir, 'report.json'), JSON.stringify({ short, machine, server, rows }, null, 2));
  console.log(`\nwrote ${join(outDir, 'report.md')} and report.json`);
}

if (!existsSync(server)) {
  console.error(`no server binary at ${server}: build it first (make bench does)`);
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });
await serverFigures();
bundleFigures();
await lighthouseFigures();
pendingFigures();
writeReport();

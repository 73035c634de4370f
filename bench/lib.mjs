// What every part of `make bench` shares: the command line, the report's rows, starting the portal on a fresh
// database, reading a process's memory, and a throwaway PostgreSQL database.

import { spawn, execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, cpus, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const here = dirname(fileURLToPath(import.meta.url));
export const root = resolve(here, '..');
const args = process.argv.slice(2);
export const short = args.includes('--short');
export const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
/** `--only api,monitor` measures just those parts (the names of bench/*.mjs); all of them by default. */
export const only = option('--only', '')
  .split(',')
  .map((part) => part.trim())
  .filter(Boolean);
export const targetDir =
  process.env.CARGO_TARGET_DIR ?? join(process.env.HOME ?? '/root', '.cache/devportal/target');
export const server = resolve(option('--server', join(targetDir, 'release/app-server')));
export const frontend = resolve(option('--frontend', join(root, 'frontend/dist')));
export const outDir = join(root, 'target/bench');
export const KB = 1024;
export const MB = 1024 * 1024;

export const rows = [];
/** One line of the report. `measured`/`reference` are numbers in `unit`; `better` says which way is good. */
export function record({ figure, target, limit, measured, unit, better = 'lower', reference, note }) {
  const met =
    measured === undefined || limit === undefined
      ? undefined
      : better === 'lower'
        ? measured <= limit
        : measured >= limit;
  rows.push({ figure, target, limit, measured, unit, better, reference, note, met });
  const shown = measured === undefined ? 'not measured' : `${format(measured, unit)}`;
  console.log(`${met === undefined ? '·' : met ? '✓' : '✗'} ${figure}: ${shown} (target ${target})`);
}

export function format(value, unit) {
  if (value === undefined || value === null) return '—';
  if (unit === 'bytes') return value >= MB ? `${(value / MB).toFixed(1)} MB` : `${(value / KB).toFixed(1)} KB`;
  if (unit === 'ms') return `${value.toFixed(value < 10 ? 2 : 0)} ms`;
  if (unit === 'score') return `${Math.round(value * 100)}`;
  if (unit === 'CLS') return value.toFixed(3);
  return `${value} ${unit}`;
}

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

export function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

export const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/**
 * Starts the server on a fresh database; answers its process, URL and how long it took to answer. With
 * `logFile`, the server's log (one line per request) goes to that file, as an operator runs it.
 */
export async function startServer(databaseUrl, extraEnv = {}, { logFile } = {}) {
  const port = await freePort();
  const data = mkdtempSync(join(tmpdir(), 'portal-bench-'));
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const logFd = logFile ? openSync(logFile, 'a') : undefined;
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
    stdio: ['ignore', logFd ?? 'ignore', 'pipe'],
  });
  if (logFd !== undefined) closeSync(logFd);
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

export function rssBytes(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
  return kb * KB;
}

/** A fresh, empty PostgreSQL database on the machine's server, or null when there is none. */
export function freshPostgres() {
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

export function writeReport() {
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


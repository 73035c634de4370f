// The soak: the release server under a steady 200 requests/s of mixed traffic (reads, writes and requests
// that must be refused) for a set time, on SQLite and PostgreSQL, with the request log on and written to a
// file as an operator runs it. Reported: failed requests (any answer other than the one expected, socket
// errors, timeouts), p99 latency, and the server's RSS at every minute (growth after the first minute is
// the figure: a leak or an unbounded cache shows as a steady climb).
//
//   node bench/run.mjs --only soak [--soak-minutes 30] [--soak-rate 200] [--soak-backends sqlite,postgres]
//                      [--soak-env MALLOC_ARENA_MAX=2] [--soak-burst 2000] [--soak-tag -arenas2]
//
// `make bench` runs 3 minutes per database; the short mode (`make test`) 20 s on SQLite. Every minute's
// sample (and one every 10 s) is in target/bench/soak-<database>.json, the request log in
// target/bench/soak-<database>.log.

import { readFileSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client, registration, seedApps } from './api.mjs';
import { freshPostgres, MB, outDir, record, rssBytes, short, sleep, startServer } from './lib.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
const MINUTES = Number(option('--soak-minutes', short ? '0.34' : '3'));
const RATE = Number(option('--soak-rate', '200'));
const BACKENDS = option('--soak-backends', short ? 'sqlite' : 'sqlite,postgres')
  .split(',')
  .map((name) => name.trim().toLowerCase())
  .filter(Boolean);
/** `--soak-env NAME=VALUE,…`: more environment for the server (an allocator setting, say). */
const EXTRA_ENV = Object.fromEntries(
  option('--soak-env', '')
    .split(',')
    .filter((pair) => pair.includes('='))
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);
/** `--soak-burst N`: halfway through, N more requests at once (a spike), to see what memory keeps after it. */
const BURST = Number(option('--soak-burst', '0'));
/** `--soak-tag NAME`: a suffix for the files of this run, so that runs side by side do not mix. */
const TAG = option('--soak-tag', '');
const APPS = 100;
const SAMPLE_MS = 10_000;
const REQUEST_TIMEOUT_MS = 10_000;
const LIST_PREFIX = 'com.bench.soak.app';
const NEW_PREFIX = 'com.bench.soak.new';

export async function soakFigures() {
  for (const backend of BACKENDS) {
    const label = backend === 'postgres' ? 'PostgreSQL' : 'SQLite';
    const database = backend === 'postgres' ? freshPostgres() : undefined;
    if (database === null) {
      record({
        figure: `soak at ${RATE} req/s (${label})`,
        target: '0 errors; p99 ≤ 20 ms; RSS flat after the first minute',
        measured: undefined,
        note: 'no PostgreSQL on 127.0.0.1:5432',
      });
      continue;
    }
    try {
      await soak(label, backend, database?.url);
    } finally {
      database?.drop();
    }
  }
}

async function soak(label, backend, databaseUrl) {
  const logFile = join(outDir, `soak-${backend}${TAG}.log`);
  rmSync(logFile, { force: true });
  const portal = await startServer(
    databaseUrl,
    { PORTAL_UPTIME_INTERVAL_SECS: '0', PORTAL_MAIL_WORKER: 'false', RUST_LOG: 'info', ...EXTRA_ENV },
    { logFile },
  );
  try {
    const client = new Client(portal.url);
    await client.signUp(`soak-${Date.now()}@example.com`);
    const org = await client.organization('Soak Apps');
    const scratch = await client.organization('Soak New Apps');
    await seedApps(client, org, LIST_PREFIX, APPS);
    const result = await drive(client, org, scratch, portal.child.pid);
    const minutes = result.perMinute;
    const rss = minutes.map((m) => m.rssBytes);
    const first = rss[0];
    const last = rss[rss.length - 1];
    const growth = minutes.length > 1 ? (last - first) / (minutes.length - 1) : undefined;
    const logBytes = statSync(logFile).size;
    const series = minutes
      .map((m) => `${m.minute}: ${(m.rssBytes / MB).toFixed(1)} MB, p99 ${m.p99Ms.toFixed(1)} ms, ${m.failed} failed`)
      .join('; ');
    const context = `${result.sent} requests in ${MINUTES} min at ${RATE}/s (${result.refused} refused on purpose: 400, 401, 404); request log on (${(logBytes / MB).toFixed(1)} MB written to ${logFile})`;
    record({
      figure: `soak at ${RATE} req/s for ${MINUTES} min (${label}): failed requests`,
      target: '0 errors',
      limit: 0,
      measured: result.failed,
      unit: 'errors',
      note: `${context}${result.failures.length ? `; first failures: ${result.failures.slice(0, 3).join(' | ')}` : ''}`,
    });
    record({
      figure: `soak at ${RATE} req/s for ${MINUTES} min (${label}): p99 latency`,
      target: '≤ 20 ms',
      limit: 20,
      measured: result.p99Ms,
      unit: 'ms',
      note: `median ${result.p50Ms.toFixed(2)} ms; per minute: ${series}`,
    });
    record({
      figure: `soak at ${RATE} req/s for ${MINUTES} min (${label}): RSS growth per minute after the first minute`,
      target: '≤ 0.5 MB a minute',
      limit: 0.5 * MB,
      measured: growth === undefined ? undefined : Math.max(0, growth),
      unit: 'bytes',
      note:
        growth === undefined
          ? 'shorter than two minutes: RSS at the end ' + (last / MB).toFixed(1) + ' MB'
          : `RSS at each minute: ${rss.map((b) => (b / MB).toFixed(1)).join(', ')} MB`,
    });
    writeFileSync(join(outDir, `soak-${backend}${TAG}.json`), JSON.stringify({ rate: RATE, minutes: MINUTES, ...result }, null, 2));
  } finally {
    await portal.stop();
  }
}

/** The traffic: a cycle of 20 requests, each with the status it must answer. */
function cycle(client, org, scratch) {
  let apps = 0;
  let edits = 0;
  let created = 0;
  let missing = 0;
  const app = () => `${LIST_PREFIX}${String((apps += 7) % APPS).padStart(5, '0')}`;
  const auth = (o) => client.headers(o);
  const get = (path, headers, status) => ({ method: 'GET', path, headers, status });
  return (step) => {
    switch (step % 20) {
      case 0:
      case 10:
        return get('/api/dev/apps', auth(org), 200);
      case 2:
      case 12:
        return get(`/api/orgs/${org}`, auth(org), 200);
      case 3:
      case 13:
        edits += 1;
        return {
          method: 'PUT',
          path: `/api/dev/apps/${app()}`,
          headers: auth(org),
          body: JSON.stringify({ description: `Edited by the soak, edit ${edits}.` }),
          status: 200,
        };
      case 5: {
        created += 1;
        const packageName = `${NEW_PREFIX}${created}`;
        return {
          method: 'POST',
          path: '/api/dev/apps/register',
          headers: auth(scratch),
          body: JSON.stringify(registration(packageName, created)),
          status: 201,
        };
      }
      case 6:
        missing += 1;
        return get(`/api/dev/apps/com.bench.soak.missing${missing}`, auth(org), 404);
      case 8:
        return get('/api/orgs', auth(), 200);
      case 9:
        return {
          method: 'PUT',
          path: `/api/dev/apps/${app()}`,
          headers: auth(org),
          body: JSON.stringify({ publicUrl: 'not a url' }),
          status: 400,
        };
      case 15:
        return get('/api/dev/apps', { 'x-org-id': org }, 401);
      case 16:
        return get('/healthz', {}, 200);
      case 18:
        return {
          method: 'POST',
          path: '/api/dev/apps/register',
          headers: auth(scratch),
          body: '{"packageName": ',
          status: 400,
        };
      default:
        return get(`/api/dev/apps/${app()}`, auth(org), 200);
    }
  };
}

/** The server's threads (its workers, and the blocking pool's threads that come and go). */
function threads(pid) {
  return Number(/Threads:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
}

const percentile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : 0);

/** Sends RATE requests a second (open loop: a slow answer does not slow the sending) for MINUTES. */
async function drive(client, org, scratch, pid) {
  const next = cycle(client, org, scratch);
  const durationMs = MINUTES * 60_000;
  const latencies = [];
  let minuteLatencies = [];
  let minuteFailed = 0;
  const perMinute = [];
  const samples = [];
  const failures = [];
  let sent = 0;
  let failed = 0;
  let refused = 0;
  let inFlight = 0;
  const one = async (request) => {
    inFlight += 1;
    const began = performance.now();
    let problem;
    // A timer of its own (a signal of AbortSignal.timeout that nothing else refers to may never fire).
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new Error('no answer in 10 s')), REQUEST_TIMEOUT_MS);
    try {
      const answer = await fetch(`${client.url}${request.path}`, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: abort.signal,
      });
      await answer.arrayBuffer();
      if (answer.status !== request.status)
        problem = `${request.method} ${request.path} answered ${answer.status}, not ${request.status}`;
      else if (request.status >= 400) refused += 1;
    } catch (error) {
      problem = `${request.method} ${request.path}: ${error.message}`;
    } finally {
      clearTimeout(timer);
    }
    const took = performance.now() - began;
    latencies.push(took);
    minuteLatencies.push(took);
    if (problem) {
      failed += 1;
      minuteFailed += 1;
      if (failures.length < 20) failures.push(problem);
    }
    inFlight -= 1;
  };
  const started = performance.now();
  let nextSample = SAMPLE_MS;
  let burst = BURST;
  for (;;) {
    const elapsed = performance.now() - started;
    if (elapsed >= durationMs) break;
    const due = Math.floor((elapsed / 1000) * RATE);
    while (sent < due) {
      one(next(sent));
      sent += 1;
    }
    if (burst > 0 && elapsed >= durationMs / 2) {
      console.log(`  soak ${Math.round(elapsed / 1000)} s: a burst of ${burst} requests at once`);
      for (; burst > 0; burst -= 1) {
        one(next(sent));
        sent += 1;
      }
    }
    if (elapsed >= nextSample) {
      const rss = rssBytes(pid);
      const sample = { seconds: Math.round(elapsed / 1000), rssBytes: rss, threads: threads(pid), inFlight };
      samples.push(sample);
      if (!short)
        console.log(
          `  soak ${sample.seconds} s: RSS ${(rss / MB).toFixed(1)} MB, ${sample.threads} threads, ${sent} sent, ${failed} failed`,
        );
      if (nextSample % 60_000 === 0) {
        const sorted = minuteLatencies.sort((a, b) => a - b);
        perMinute.push({ minute: nextSample / 60_000, rssBytes: rss, p99Ms: percentile(sorted, 0.99), failed: minuteFailed });
        minuteLatencies = [];
        minuteFailed = 0;
      }
      nextSample += SAMPLE_MS;
    }
    await sleep(2);
  }
  // Every request has its time limit; what is still open well after it counts as failed.
  const waitUntil = performance.now() + REQUEST_TIMEOUT_MS + 5_000;
  while (inFlight > 0 && performance.now() < waitUntil) await sleep(10);
  if (inFlight > 0) {
    failed += inFlight;
    failures.push(`${inFlight} requests still open ${REQUEST_TIMEOUT_MS / 1000 + 5} s after the end`);
  }
  const rss = rssBytes(pid);
  samples.push({ seconds: Math.round((performance.now() - started) / 1000), rssBytes: rss, inFlight: 0 });
  if (minuteLatencies.length > RATE * 30 || perMinute.length === 0) {
    const sorted = minuteLatencies.sort((a, b) => a - b);
    perMinute.push({ minute: Math.round((MINUTES) * 10) / 10, rssBytes: rss, p99Ms: percentile(sorted, 0.99), failed: minuteFailed });
  }
  const sorted = latencies.sort((a, b) => a - b);
  return {
    sent,
    failed,
    refused,
    failures,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    perMinute,
    samples,
  };
}

// The uptime figures: the monitor over 100,000 apps on loopback health servers, and the month view over
// 10,000 apps with a full month of day rollups. Each on SQLite and, when the machine has one, PostgreSQL.
//
// The monitor: a fleet of health servers (bench/fleet.mjs: healthy, slow, failing and silent pairs over
// 127.88.x.y) and a fresh database with the apps inserted straight into it; the release server is started
// with private targets allowed and measured from its start until every app has a recorded check (the
// `uptime_monitor` rows; monitored apps have theirs from the trigger that makes them, updated here), with its
// peak RSS (VmHWM). The month view: the day rollups of last month for every
// app, timed as a platform admin (median of several calls), and the bytes the rollup table and its indexes
// take per app-day.
//
// For profiling: BENCH_UPTIME_CONCURRENCY sets PORTAL_UPTIME_CONCURRENCY for the monitor runs, and
// BENCH_KEEP=<seconds> keeps the month view's server up that long after printing its URL and an admin token.

import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { KB, MB, freePort, freshPostgres, here, median, record, server, short, sleep, startServer } from './lib.mjs';

const scale = short
  ? { apps: 2_000, pairs: 20, intervalSecs: 20, monthApps: 200, monthCalls: 3 }
  : { apps: 100_000, pairs: 1_000, intervalSecs: 60, monthApps: 10_000, monthCalls: 7 };
/** Health checks in flight at once during the run (the server's default unless BENCH_UPTIME_CONCURRENCY). */
const concurrency = process.env.BENCH_UPTIME_CONCURRENCY;

/** Runs SQL on the benchmark database (the sqlite3 or psql client); answers its output, `|`-separated rows. */
export function sql(db, text) {
  const [command, args] =
    db.kind === 'sqlite'
      ? ['sqlite3', ['-cmd', '.timeout 30000', db.path]]
      : ['psql', [db.url, '-qAtX', '-v', 'ON_ERROR_STOP=1']];
  return execFileSync(command, args, { input: text, encoding: 'utf8', maxBuffer: 64 * MB }).trim();
}

/** A fresh database with the schema: SQLite in a temporary folder, or PostgreSQL (null when there is none). */
export function freshDatabase(kind) {
  let db;
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'portal-bench-uptime-'));
    const path = join(dir, 'portal.db');
    db = { kind, path, url: `sqlite://${path}`, drop: () => rmSync(dir, { recursive: true, force: true }) };
  } else {
    const pg = freshPostgres();
    if (!pg) return null;
    db = { kind, url: pg.url, drop: pg.drop };
  }
  execFileSync(server, ['migrate'], { env: { PATH: process.env.PATH, DATABASE_URL: db.url }, stdio: 'pipe' });
  return db;
}

export const label = (kind) => (kind === 'sqlite' ? 'SQLite' : 'PostgreSQL');

/**
 * Inserts `count` apps of one organization, app i at `<urlOf(i)>/app/<i>` (its health URL adds `/health`),
 * alternately PUBLISHED and SUBMITTED, as the portal stores them (the columns of an app the developer
 * registered; JSON lists empty).
 */
function seedApps(db, count, pairUrls) {
  const now = Date.now();
  const values = pairUrls.map((url, index) => `(${index}, '${url}')`).join(',\n');
  const pairs = pairUrls.length;
  const columns = `package_name, org_id, developer_id, name, description, onboarding_instructions, public_url,
    logo_url, webview_url, is_public, app_store_status, app_type, created_at, updated_at, tools, settings,
    hardware_requirements, permissions, shared_with_organization, shared_with_emails`;
  const org = `INSERT INTO organizations (id, name, website, contact_email, description, logo, created_at, updated_at)
    VALUES ('bench-org', 'Benchmark organization', NULL, 'ops@bench.example', NULL, NULL, ${now}, ${now});`;
  if (db.kind === 'sqlite') {
    sql(
      db,
      `BEGIN; ${org}
       CREATE TEMP TABLE bench_pairs (idx INTEGER PRIMARY KEY, url TEXT NOT NULL);
       INSERT INTO bench_pairs VALUES ${values};
       INSERT INTO apps (${columns})
       WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${count - 1})
       SELECT printf('com.bench.app%06d', i), 'bench-org', 'bench-developer', 'Bench app ' || i,
         'An app of the uptime benchmark', '', p.url || '/app/' || i, '', NULL, 0,
         CASE WHEN i % 2 = 0 THEN 'PUBLISHED' ELSE 'SUBMITTED' END, 'standard', ${now}, ${now},
         '[]', '[]', '[]', '[]', 0, '[]'
       FROM n JOIN bench_pairs p ON p.idx = n.i % ${pairs};
       COMMIT;`,
    );
  } else {
    sql(
      db,
      `BEGIN; ${org}
       CREATE TEMP TABLE bench_pairs (idx INTEGER PRIMARY KEY, url TEXT NOT NULL);
       INSERT INTO bench_pairs VALUES ${values};
       INSERT INTO apps (${columns})
       SELECT 'com.bench.app' || lpad(i::text, 6, '0'), 'bench-org', 'bench-developer', 'Bench app ' || i,
         'An app of the uptime benchmark', '', p.url || '/app/' || i, '', NULL, false,
         CASE WHEN i % 2 = 0 THEN 'PUBLISHED' ELSE 'SUBMITTED' END, 'standard', ${now}, ${now},
         '[]', '[]', '[]', '[]', false, '[]'
       FROM generate_series(0, ${count - 1}) AS n(i) JOIN bench_pairs p ON p.idx = n.i % ${pairs};
       COMMIT; ANALYZE;`,
    );
  }
}

/** The peak resident set of a process so far (VmHWM), in bytes. */
function peakRssBytes(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) * KB;
}

/** CPU time (user and system) a process has used so far, in ms: not inflated by other work on the machine. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of the line, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** Starts the health servers; answers their URLs and behaviours, what they served, and how to stop them. */
export async function startFleet(pairs) {
  // Four consecutive ports per address; the first is free on 127.0.0.1, and the fleet's addresses are its own.
  const firstPort = Math.min(await freePort(), 65_000);
  const child = spawn(process.execPath, [join(here, 'fleet.mjs'), String(pairs), String(firstPort)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr.on('data', (chunk) => (errors += chunk));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.done) throw new Error(`the health fleet did not start: ${errors}`);
  const { pairs: described } = JSON.parse(first.value);
  return {
    pairs: described,
    served: async () => {
      child.stdin.write('\n');
      const next = await lines.next();
      return next.done ? {} : JSON.parse(next.value).served;
    },
    stop: async () => {
      child.stdin.end();
      await new Promise((done) => (child.exitCode !== null ? done() : child.once('exit', done)));
    },
  };
}

/** The monitor over `scale.apps` apps on one database: time until each has been checked once, peak RSS. */
export async function measureMonitor(kind, fleet) {
  const db = freshDatabase(kind);
  if (!db) {
    record({
      figure: `uptime monitor, ${scale.apps.toLocaleString('en')} apps, PostgreSQL`,
      target: 'every app within 60 s',
      measured: undefined,
      note: 'no PostgreSQL server on this machine',
    });
    return;
  }
  const name = `uptime monitor, ${scale.apps.toLocaleString('en')} apps over ${scale.pairs.toLocaleString('en')} loopback host:port pairs, ${label(kind)}`;
  let portal;
  try {
    seedApps(
      db,
      scale.apps,
      fleet.pairs.map((pair) => pair.url),
    );
    const env = {
      PORTAL_ALLOW_PRIVATE_TARGETS: 'true',
      PORTAL_UPTIME_INTERVAL_SECS: String(scale.intervalSecs),
      RUST_LOG: 'warn',
    };
    if (concurrency) env.PORTAL_UPTIME_CONCURRENCY = concurrency;
    const before = await fleet.served();
    portal = await startServer(db.url, env);
    const startedAt = Date.now() - portal.startupMs;
    const deadline = startedAt + scale.intervalSecs * 3_000 + 15_000;
    let checked = 0;
    let doneMs;
    let peak = 0;
    while (Date.now() < deadline) {
      peak = Math.max(peak, peakRssBytes(portal.child.pid));
      checked = Number(sql(db, 'SELECT COUNT(*) FROM uptime_monitor WHERE last_checked_at IS NOT NULL;'));
      if (checked >= scale.apps) {
        doneMs = Date.now() - startedAt;
        break;
      }
      await sleep(500);
    }
    peak = Math.max(peak, peakRssBytes(portal.child.pid));
    const load = loadAverage();
    const after = await fleet.served();
    const health = sql(
      db,
      'SELECT last_health, COUNT(*) FROM uptime_monitor WHERE last_health IS NOT NULL GROUP BY last_health ORDER BY 1;',
    )
      .split('\n')
      .filter(Boolean)
      .map((line) => line.replace('|', ' '))
      .join(', ');
    const firstChecks = sql(
      db,
      'SELECT MIN(first), MAX(first) FROM (SELECT MIN(checked_at) AS first FROM uptime_checks GROUP BY package_name) f;',
    ).split('|');
    const spread = firstChecks[1] ? ((Number(firstChecks[1]) - startedAt) / 1000).toFixed(1) : '—';
    const requests = Object.entries(after)
      .map(([behaviour, count]) => `${behaviour} ${count - (before[behaviour] ?? 0)}`)
      .join(', ');
    const context = `interval ${scale.intervalSecs} s, concurrency ${concurrency ?? 'default'}; last check started ${spread} s after the start; last health: ${health}; requests served${short ? ' (both databases at once)' : ''}: ${requests}; load average ${load}`;
    record({
      figure: `${name}: time until every app was checked once`,
      target: `every app within one ${scale.intervalSecs} s interval`,
      limit: scale.intervalSecs * 1000,
      measured: doneMs,
      unit: 'ms',
      note:
        doneMs === undefined
          ? `${checked} of ${scale.apps} apps checked by the deadline; ${context}`
          : context,
    });
    record({
      figure: `${name}: peak RSS (VmHWM)`,
      target: '≤ 200 MB',
      limit: 200 * MB,
      measured: peak,
      unit: 'bytes',
    });
    if (doneMs !== undefined) await steadyState(db, portal, name);
  } finally {
    await portal?.stop();
    db.drop();
  }
}

/** The database's size in bytes: SQLite's pages (the file after a checkpoint, without the WAL), PostgreSQL's. */
function databaseBytes(db) {
  return Number(
    db.kind === 'sqlite'
      ? sql(db, 'SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size();')
      : sql(db, 'SELECT pg_database_size(current_database());'),
  );
}

/**
 * The monitor once every app has been checked: the rounds after the first (each interval checks every app
 * again), with the server's CPU time per round and the database's growth, scaled to a day.
 */
async function steadyState(db, portal, name) {
  const rounds = short ? 1 : 2;
  const pid = portal.child.pid;
  const checks = () => Number(sql(db, 'SELECT COUNT(*) FROM uptime_checks;'));
  const [cpu0, bytes0, checks0, at0] = [cpuMs(pid), databaseBytes(db), checks(), Date.now()];
  await sleep(rounds * scale.intervalSecs * 1000);
  const [cpu1, bytes1, checks1, at1] = [cpuMs(pid), databaseBytes(db), checks(), Date.now()];
  const elapsedRounds = (at1 - at0) / (scale.intervalSecs * 1000);
  const perRound = (cpu1 - cpu0) / elapsedRounds;
  const perDay = ((bytes1 - bytes0) / (at1 - at0)) * 86_400_000;
  const context = `${rounds} round(s) of ${scale.intervalSecs} s after every app was checked once; ${Math.round((checks1 - checks0) / elapsedRounds).toLocaleString('en')} checks recorded per round; load average ${loadAverage()}`;
  record({
    figure: `${name}: server CPU time per round, steady state`,
    target: `< one ${scale.intervalSecs} s interval`,
    limit: scale.intervalSecs * 1000,
    measured: Math.round(perRound),
    unit: 'ms',
    note: `${((perRound / (scale.intervalSecs * 1000)) * 100).toFixed(1)}% of one core; ${context}`,
  });
  record({
    figure: `${name}: database growth per day, steady state`,
    target: '—',
    measured: Math.round(perDay),
    unit: 'bytes',
    note: `${((bytes1 - bytes0) / MB).toFixed(1)} MB over ${((at1 - at0) / 1000).toFixed(0)} s, scaled to a day (raw checks before the nightly rollup and pruning); ${context}`,
  });
}

/** Signs a user up through the built-in identity service, makes them platform admin, answers their token. */
async function adminToken(url, db) {
  const email = `bench-admin-${Date.now()}@bench.example`;
  const password = 'a sufficiently long benchmark passphrase';
  const auth = (path, body) =>
    fetch(`${url}/auth/v1${path}`, {
      method: 'POST',
      headers: { apikey: 'built-in', authorization: 'Bearer built-in', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const signedUp = await auth('/signup', { email, password });
  if (!signedUp.ok) throw new Error(`sign-up failed: ${signedUp.status} ${await signedUp.text()}`);
  execFileSync(server, ['admin', 'grant', email], {
    env: { PATH: process.env.PATH, DATABASE_URL: db.url },
    stdio: 'pipe',
  });
  const session = await (await auth('/token?grant_type=password', { email, password })).json();
  const exchanged = await fetch(`${url}/api/auth/exchange-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ supabaseToken: session.access_token }),
  });
  if (!exchanged.ok) throw new Error(`token exchange failed: ${exchanged.status}`);
  return (await exchanged.json()).coreToken;
}

/** Last month (UTC), whole. */
function lastMonth() {
  const now = new Date();
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  const days = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  return { year: first.getUTCFullYear(), month: first.getUTCMonth() + 1, days };
}

/**
 * `apps` PUBLISHED apps, each with a day rollup for every day of last month (about 1,440 checks a day, a few
 * of them failed) and a current state.
 */
function seedMonth(db, apps, { year, month, days }) {
  const pairUrls = ['http://127.0.0.1:9'];
  seedApps(db, apps, pairUrls);
  const now = Date.now();
  const ym = `${year}-${String(month).padStart(2, '0')}`;
  const rollups =
    db.kind === 'sqlite'
      ? `INSERT INTO uptime_daily (package_name, day, healthy, unhealthy, total, latency_sum_ms, latency_count)
         WITH RECURSIVE d(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM d WHERE n < ${days})
         SELECT a.package_name, '${ym}-' || printf('%02d', d.n), 1440 - (a.rowid + d.n) % 7, (a.rowid + d.n) % 7,
           1440, 1440 * (30 + (a.rowid + d.n) % 50), 1440
         FROM apps a CROSS JOIN d ORDER BY 1, 2;`
      : `INSERT INTO uptime_daily (package_name, day, healthy, unhealthy, total, latency_sum_ms, latency_count)
         SELECT a.package_name, '${ym}-' || lpad(d::text, 2, '0'), 1440 - (a.i + d) % 7, (a.i + d) % 7, 1440,
           1440 * (30 + (a.i + d) % 50), 1440
         FROM (SELECT package_name, row_number() OVER (ORDER BY package_name) AS i FROM apps) a
         CROSS JOIN generate_series(1, ${days}) AS d ORDER BY 1, 2;`;
  sql(
    db,
    `BEGIN; ${rollups}
     INSERT INTO uptime_monitor (package_name, check_slot_at, lease_until, consecutive_failures, last_health,
       last_online, last_checked_at, offline_alert_at, last_changed_at)
     SELECT package_name, ${now}, NULL, 0, 'healthy', ${db.kind === 'sqlite' ? 1 : 'true'}, ${now}, NULL, ${now}
     FROM apps WHERE true
     ON CONFLICT (package_name) DO UPDATE SET check_slot_at = excluded.check_slot_at, lease_until = NULL,
       consecutive_failures = 0, last_health = excluded.last_health, last_online = excluded.last_online,
       last_checked_at = excluded.last_checked_at, offline_alert_at = NULL,
       last_changed_at = excluded.last_changed_at;
     COMMIT;${db.kind === 'sqlite' ? ' ANALYZE;' : ' VACUUM ANALYZE;'}`,
  );
}

/** Bytes the day rollups and their indexes take, per stored app-day. */
function bytesPerAppDay(db) {
  const [bytes, rows] = sql(
    db,
    db.kind === 'sqlite'
      ? `SELECT (SELECT SUM(pgsize) FROM dbstat WHERE name IN
           (SELECT name FROM sqlite_schema WHERE tbl_name = 'uptime_daily')), (SELECT COUNT(*) FROM uptime_daily);`
      : `SELECT pg_total_relation_size('uptime_daily'), (SELECT COUNT(*) FROM uptime_daily);`,
  )
    .split('|')
    .map(Number);
  return bytes / rows;
}

/** The month view of `scale.monthApps` apps on one database: median response time and bytes per app-day. */
export async function measureMonthView(kind) {
  const name = `month view for ${scale.monthApps.toLocaleString('en')} apps with a full month of rollups, ${label(kind)}`;
  const db = freshDatabase(kind);
  if (!db) {
    record({ figure: name, target: '≤ 200 ms', measured: undefined, note: 'no PostgreSQL server on this machine' });
    return;
  }
  let portal;
  try {
    const month = lastMonth();
    seedMonth(db, scale.monthApps, month);
    // The staff account made here has no second factor (staff use cases need one by default): what is
    // measured is the month view, not the sign-in.
    portal = await startServer(db.url, { PORTAL_UPTIME_INTERVAL_SECS: '0', PORTAL_STAFF_MFA: 'optional', RUST_LOG: 'warn' });
    const token = await adminToken(portal.url, db);
    if (process.env.BENCH_KEEP) {
      console.log(JSON.stringify({ url: portal.url, token, db: db.url, month }));
      await sleep(Number(process.env.BENCH_KEEP) * 1000);
    }
    // What the App Status tab asks: a page of 25 apps, searched and filtered by the server.
    const lastPage = Math.ceil(scale.monthApps / 25);
    const asks = [
      ['first page', ''],
      ['a middle page', `&page=${Math.ceil(lastPage / 2)}`],
      ['the last page', `&page=${lastPage}`],
      ['a search', '&search=app0001'],
      ['the status filter', '&status=SUBMITTED&page=2'],
    ];
    const call = async (extra) => {
      const started = performance.now();
      const answer = await fetch(
        `${portal.url}/api/app-uptime/get-app-uptime-days?month=${month.month}&year=${month.year}${extra}`,
        // As a browser asks: the server compresses the answer.
        { headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip, deflate, br' } },
      );
      const body = await answer.arrayBuffer();
      const ms = performance.now() - started;
      if (!answer.ok) throw new Error(`month view answered ${answer.status}`);
      return { ms, encoding: answer.headers.get('content-encoding'), jsonBytes: body.byteLength, json: body };
    };
    const first = await call('');
    const answer = JSON.parse(Buffer.from(first.json).toString('utf8'));
    if (answer.data.length !== Math.min(25, scale.monthApps) || answer.total !== scale.monthApps || answer.data[0].days.length !== month.days) {
      throw new Error(`month view answered ${answer.data.length} of ${answer.total} apps of ${answer.data[0]?.days.length} days`);
    }
    const times = [];
    const byAsk = new Map(asks.map(([what]) => [what, []]));
    const cpuBefore = cpuMs(portal.child.pid);
    for (let i = 0; i < scale.monthCalls; i += 1) {
      for (const [what, extra] of asks) {
        const { ms } = await call(extra);
        times.push(ms);
        byAsk.get(what).push(ms);
      }
    }
    const calls = scale.monthCalls * asks.length;
    const cpuPerCall = (cpuMs(portal.child.pid) - cpuBefore) / calls;
    const perAsk = [...byAsk].map(([what, ms]) => `${what} ${median(ms).toFixed(1)} ms`).join(', ');
    record({
      figure: `${name}: response time of a page of the App Status tab (median of ${calls})`,
      target: '≤ 200 ms',
      limit: 200,
      measured: median(times),
      unit: 'ms',
      note: `medians: ${perAsk}; the server's CPU time per call ${cpuPerCall.toFixed(1)} ms; ${(first.jsonBytes / KB).toFixed(1)} KB of JSON per page of 25 apps, sent as ${first.encoding ?? 'identity'}; load average ${loadAverage()}`,
    });
    record({
      figure: `${name}: stored bytes per app-day (rollup table and its indexes)`,
      target: '≤ 1 KB',
      limit: KB,
      measured: Math.round(bytesPerAppDay(db)),
      unit: 'B',
    });
  } finally {
    await portal?.stop();
    db.drop();
  }
}

/** Runs `measure` for both databases: one after the other, or, in the short mode, at once (to stay quick). */
async function forBothDatabases(measure) {
  const kinds = ['sqlite', 'postgres'];
  if (short) {
    await Promise.all(kinds.map((kind) => measure(kind)));
  } else {
    for (const kind of kinds) await measure(kind);
  }
}

export async function monitorFigures() {
  const fleet = await startFleet(scale.pairs);
  try {
    await forBothDatabases((kind) => measureMonitor(kind, fleet));
  } finally {
    await fleet.stop();
  }
}

export async function monthFigures() {
  await forBothDatabases(measureMonthView);
}

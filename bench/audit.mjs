// The audit log figure (issue 22): the newest 50 entries of one organization, and of one person in it, with
// 1,000,000 entries in the table, p99 on SQLite and PostgreSQL. The entries are seeded straight into a fresh
// database with one INSERT … SELECT (the rows the repositories write: UUID ids, JSON changes), spread over 20
// organizations; the release server reads them as the organization's admin.

import { record, short, startServer } from './lib.mjs';
import { freshDatabase, label, sql } from './monitor.mjs';

const scale = short ? { entries: 20_000, calls: 40 } : { entries: 1_000_000, calls: 500 };
const ORGS = 20;
/** The person whose entries the filtered read asks for (one entry in seven). */
const ACTOR = '00000000-0000-4000-8000-00000000a11c';

/** `count` entries over `ORGS` organizations (the measured one is org 0), one second apart, newest first. */
function seedEntries(db, orgIds, count) {
  const now = Date.now();
  const orgCase = `CASE i % ${ORGS} ${orgIds.map((id, n) => `WHEN ${n} THEN '${id}'`).join(' ')} END`;
  const pad12 = db.kind === 'sqlite' ? "printf('%012d', i)" : "lpad(i::text, 12, '0')";
  const columns = `id, at, org_id, platform, actor_id, actor_email, action, target_kind, target_id, target_label,
    changes, client_ip, user_agent`;
  const select = `SELECT '00000000-0000-4000-9000-' || ${pad12}, ${now} - i * 1000, ${orgCase}, ${db.kind === 'sqlite' ? 0 : 'false'},
      CASE WHEN i % 7 = 0 THEN '${ACTOR}' ELSE '00000000-0000-4000-8000-' || ${pad12} END,
      CASE WHEN i % 7 = 0 THEN 'alice@bench.example' ELSE 'dev' || i || '@bench.example' END,
      CASE i % 3 WHEN 0 THEN 'app.updated' WHEN 1 THEN 'app.key_regenerated' ELSE 'member.role_changed' END,
      'app', 'com.bench.app' || (i % 500), NULL,
      CASE i % 3 WHEN 0 THEN '[{"field":"name","old":"Old","new":"New"}]' ELSE '[]' END,
      '203.0.113.' || (i % 250), 'bench/1.0'`;
  sql(
    db,
    db.kind === 'sqlite'
      ? `PRAGMA journal_mode = WAL; BEGIN;
         WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${count - 1})
         INSERT INTO audit_log (${columns}) ${select} FROM n;
         COMMIT; ANALYZE;`
      : `BEGIN; INSERT INTO audit_log (${columns}) ${select} FROM generate_series(0, ${count - 1}) AS n(i);
         COMMIT; VACUUM ANALYZE audit_log;`,
  );
}

/** A signed-up account with a core token, admin of a new organization; answers the token and its id. */
export async function orgAdmin(url) {
  const email = `bench-audit-${Date.now()}@bench.example`;
  const password = 'a sufficiently long benchmark passphrase';
  const auth = (path, body) =>
    fetch(`${url}/auth/v1${path}`, {
      method: 'POST',
      headers: { apikey: 'built-in', authorization: 'Bearer built-in', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const signedUp = await auth('/signup', { email, password });
  if (!signedUp.ok) throw new Error(`sign-up failed: ${signedUp.status} ${await signedUp.text()}`);
  const session = await signedUp.json();
  const exchanged = await fetch(`${url}/api/auth/exchange-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ supabaseToken: session.access_token }),
  });
  if (!exchanged.ok) throw new Error(`token exchange failed: ${exchanged.status}`);
  const token = (await exchanged.json()).coreToken;
  const created = await fetch(`${url}/api/orgs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Audited Org' }),
  });
  if (!created.ok) throw new Error(`organization not created: ${created.status}`);
  return { token, org: (await created.json()).data.id };
}

const p99 = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
};

async function measureAuditLog(kind) {
  const name = `audit log: the newest 50 entries of an organization, ${scale.entries.toLocaleString('en')} entries in the table, ${label(kind)}`;
  const db = freshDatabase(kind);
  if (!db) {
    record({ figure: name, target: 'p99 ≤ 20 ms', measured: undefined, note: 'no PostgreSQL server on this machine' });
    return;
  }
  let portal;
  try {
    portal = await startServer(db.url, { PORTAL_UPTIME_INTERVAL_SECS: '0', RUST_LOG: 'warn' });
    const { token, org } = await orgAdmin(portal.url);
    const others = Array.from({ length: ORGS - 1 }, (_, n) => `00000000-0000-4000-a000-${String(n).padStart(12, '0')}`);
    const seeding = performance.now();
    seedEntries(db, [org, ...others], scale.entries);
    const seedSecs = (performance.now() - seeding) / 1000;
    const read = async (query) => {
      const started = performance.now();
      const answer = await fetch(`${portal.url}/api/orgs/${org}/audit-log${query}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const body = await answer.json();
      const ms = performance.now() - started;
      if (!answer.ok || body.data.entries.length !== 50) {
        throw new Error(`audit log answered ${answer.status} with ${body.data?.entries?.length} entries`);
      }
      return { ms, next: body.data.nextCursor };
    };
    const asks = [
      ['newest', ''],
      ['one person', `?actor=${ACTOR}`],
    ];
    const results = new Map(asks.map(([what]) => [what, []]));
    let cursor;
    const paging = [];
    // Warm the caches once. The connection the sign-up used may have been closed by the server while the
    // seeding ran (its keep-alive timeout): a read that finds it closed is made again, once.
    for (const [, query] of asks) await read(query).catch(() => read(query));
    for (let i = 0; i < scale.calls; i += 1) {
      for (const [what, query] of asks) results.get(what).push((await read(query)).ms);
      // A later page by cursor (the tenth page after a few rounds).
      const page = await read(cursor ? `?cursor=${encodeURIComponent(cursor)}` : '');
      paging.push(page.ms);
      cursor = i % 10 === 9 ? undefined : page.next;
    }
    const rows = sql(db, 'SELECT COUNT(*) FROM audit_log;');
    const perAsk = [...results].map(([what, ms]) => `${what} p99 ${p99(ms).toFixed(1)} ms`).join(', ');
    record({
      figure: `${name}: p99 of ${scale.calls} reads`,
      target: 'p99 ≤ 20 ms',
      limit: 20,
      measured: p99(results.get('newest')),
      unit: 'ms',
      note: `${perAsk}, pages 2–10 by cursor p99 ${p99(paging).toFixed(1)} ms; ${Number(rows).toLocaleString('en')} rows seeded in ${seedSecs.toFixed(1)} s by one INSERT … SELECT`,
    });
  } finally {
    await portal?.stop();
    db.drop();
  }
}

/** One database after the other, also in the short mode: the seeding blocks the process (the sqlite3 and psql
 * clients run synchronously), so reads timed beside it would count its time. */
export async function auditFigures() {
  for (const kind of ['sqlite', 'postgres']) await measureAuditLog(kind);
}

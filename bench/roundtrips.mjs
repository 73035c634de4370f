// Counts the PostgreSQL round trips of one authenticated `GET /api/dev/apps` (not part of `make bench`):
//
//   node bench/roundtrips.mjs [--server PATH] [--calls N]
//
// Starts the server on a fresh PostgreSQL database, makes a user, an organization and 3 apps, then reads the
// database's transaction counters (`pg_stat_database`: every statement outside a transaction, the pool's
// `SELECT 1` check included, is one transaction) before and after N sequential calls, less what the server did
// meanwhile when idle. PostgreSQL publishes a backend's counters up to a few seconds late, hence the waits.

import { execFileSync } from 'node:child_process';
import { Client, seedApps } from './api.mjs';
import { freshPostgres, sleep, startServer } from './lib.mjs';

const calls = Number(process.argv[process.argv.indexOf('--calls') + 1]) || 500;
const base = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432';
const SETTLE_MS = 12_000;

const database = freshPostgres();
if (!database) {
  console.error('no PostgreSQL on 127.0.0.1:5432');
  process.exit(2);
}
const name = database.url.slice(database.url.lastIndexOf('/') + 1);
/** Transactions (committed and rolled back) of the bench database, read from another database. */
const transactions = () =>
  Number(
    execFileSync('psql', [
      `${base}/postgres`,
      '-qAt',
      '-c',
      `SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = '${name}'`,
    ])
      .toString()
      .trim(),
  );

const portal = await startServer(database.url, {
  PORTAL_UPTIME_INTERVAL_SECS: '0',
  PORTAL_MAIL_WORKER: 'false',
});
try {
  const client = new Client(portal.url);
  await client.signUp(`roundtrips-${Date.now()}@example.com`);
  const org = await client.organization('Round trips');
  await seedApps(client, org, 'com.bench.roundtrips.app', 3);
  const list = () => client.call('GET', '/api/dev/apps', undefined, org, 200);
  await list(); // the answer is kept from here on: the calls measured are the usual ones

  await sleep(SETTLE_MS);
  const before = transactions();
  await sleep(SETTLE_MS);
  const idle = transactions() - before;
  const start = transactions();
  for (let i = 0; i < calls; i += 1) await list();
  await sleep(SETTLE_MS);
  const busy = transactions() - start - idle;
  console.log(
    `${calls} sequential calls: ${busy} PostgreSQL transactions (${idle} while idle for the same wait) = ` +
      `${(busy / calls).toFixed(2)} per call`,
  );
} finally {
  await portal.stop();
  database.drop();
}

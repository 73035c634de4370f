// Counts the PostgreSQL statements of one authenticated `GET /api/dev/apps`, sequentially (`make bench`
// counts them under load, beside the throughput):
//
//   node bench/roundtrips.mjs [--server PATH] [--calls N]
//
// Starts the server on a fresh PostgreSQL database, makes a user, an organization and 3 apps, then reads the
// database's transaction counters (bench/statements.mjs) around N sequential calls.

import { Client, seedApps } from './api.mjs';
import { freshPostgres, startServer } from './lib.mjs';
import { statementCounter } from './statements.mjs';

const calls = Number(process.argv[process.argv.indexOf('--calls') + 1]) || 500;

const database = freshPostgres();
if (!database) {
  console.error('no PostgreSQL on 127.0.0.1:5432');
  process.exit(2);
}

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

  const counter = await statementCounter(database.url);
  for (let i = 0; i < calls; i += 1) await list();
  const { transactions, tuples, idle } = await counter.total();
  console.log(
    `${calls} sequential calls: ${transactions} PostgreSQL transactions (${idle} while idle for as long) = ` +
      `${(transactions / calls).toFixed(2)} per call; ${(tuples / calls).toFixed(1)} rows read per call`,
  );
} finally {
  await portal.stop();
  database.drop();
}

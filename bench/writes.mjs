// Round trips to PostgreSQL per request, for the writes of the app pages (register, edit, publish, regenerate
// the key) and the organization page's read (`GET /api/orgs/{orgId}`), counted by a proxy in front of the
// database (bench/pgwire.mjs): every request runs alone, so what the proxy saw between its start and its
// answer is its own. The count of a request does not depend on the machine's load.
//
//   node bench/writes.mjs [--server PATH] [--calls N]     (also `node bench/run.mjs --only writes`)

import { Client, registration } from './api.mjs';
import { freshPostgres, median, option, record, short, startServer } from './lib.mjs';
import { roundTripProxy } from './pgwire.mjs';

const CALLS = Number(option('--calls', short ? 5 : 20));

/** Each path with the most round trips it should take (BEGIN and COMMIT included for a write). */
const PATHS = [
  { name: 'register an app (POST /api/dev/apps/register)', key: 'register', limit: 6 },
  { name: 'edit an app (PUT /api/dev/apps/{packageName})', key: 'edit', limit: 6 },
  { name: 'publish an app (POST /api/dev/apps/{packageName}/publish)', key: 'publish', limit: 8 },
  { name: 'regenerate the API key (POST /api/dev/apps/{packageName}/api-key)', key: 'key', limit: 6 },
  { name: 'the organization with members and invitations (GET /api/orgs/{orgId})', key: 'org', limit: 2 },
];

/** Round trips of each path, `calls` times each: `{ key: [trips of call 1, ...] }`. */
export async function countRoundTrips(calls = CALLS) {
  const database = freshPostgres();
  if (!database) return null;
  const proxy = await roundTripProxy(database.url);
  const portal = await startServer(proxy.url, {
    PORTAL_UPTIME_INTERVAL_SECS: '0',
    PORTAL_MAIL_WORKER: 'false',
  });
  const counts = Object.fromEntries(PATHS.map((path) => [path.key, []]));
  try {
    const client = new Client(portal.url);
    await client.signUp(`writes-${Date.now()}@example.com`);
    const org = await client.organization('Round trips of the writes');
    // An invitation, so that the organization's read has all three parts.
    await client.call('POST', `/api/orgs/${org}/members`, { email: 'invited@bench.example.com', role: 'member' }, undefined, 201);
    const counted = async (key, request) => {
      const before = proxy.count();
      await request();
      counts[key].push(proxy.count() - before);
    };
    const app = (n) => `com.bench.writes.app${String(n).padStart(5, '0')}`;
    // One warm-up call of each kind first: a connection's first use of a statement prepares it.
    for (let n = 0; n <= calls; n += 1) {
      const measure = n === 0 ? (_key, request) => request() : counted;
      await measure('register', () =>
        client.call('POST', '/api/dev/apps/register', registration(app(n), n), org, 201),
      );
      await measure('edit', () =>
        client.call('PUT', `/api/dev/apps/${app(n)}`, { description: `Edited, ${n}.` }, org, 200),
      );
      await measure('key', () => client.call('POST', `/api/dev/apps/${app(n)}/api-key`, undefined, org, 200));
      await measure('publish', () => client.call('POST', `/api/dev/apps/${app(n)}/publish`, undefined, org, 200));
      await measure('org', () => client.call('GET', `/api/orgs/${org}`, undefined, undefined, 200));
    }
  } finally {
    await portal.stop();
    await proxy.close();
    database.drop();
  }
  return counts;
}

/** The `make bench` rows: the median round trips per request of each path. */
export async function writeFigures() {
  const counts = await countRoundTrips();
  for (const path of PATHS) {
    const trips = counts?.[path.key];
    record({
      figure: `PostgreSQL round trips per request: ${path.name}`,
      target: `≤ ${path.limit}`,
      limit: path.limit,
      measured: trips ? median(trips) : undefined,
      unit: 'round trips',
      note: trips
        ? `median of ${trips.length} sequential calls (min ${Math.min(...trips)}, max ${Math.max(...trips)}), counted by a proxy in front of the database (bench/pgwire.mjs); a write's BEGIN and COMMIT are one each`
        : 'no PostgreSQL on 127.0.0.1:5432',
    });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const counts = await countRoundTrips();
  if (!counts) {
    console.error('no PostgreSQL on 127.0.0.1:5432');
    process.exit(2);
  }
  for (const path of PATHS) {
    const trips = counts[path.key];
    console.log(`${path.name}: median ${median(trips)} (min ${Math.min(...trips)}, max ${Math.max(...trips)})`);
  }
}

// The webhook figures (issue 38), on SQLite and PostgreSQL: how many events per second are queued by real
// writes and delivered (signed) to a local receiver, and how much latency queuing an event adds to the write
// that causes it. The write is an app's key regeneration (`app.key_regenerated`), timed with no endpoint and
// then with five endpoints (five deliveries queued in its transaction).

import http from 'node:http';
import { orgAdmin } from './audit.mjs';
import { median, record, short, startServer } from './lib.mjs';
import { freshDatabase, label } from './monitor.mjs';

const scale = short ? { writes: 20, burst: 40 } : { writes: 300, burst: 1000 };
const ENDPOINTS = 5;
const PACKAGE = 'com.bench.hooks';

/** A receiver that answers 204 at once and counts what it got. */
async function startReceiver() {
  let count = 0;
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      count += 1;
      response.writeHead(204);
      response.end();
    });
  });
  await new Promise((ready) => server.listen(0, '127.0.0.1', ready));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    count: () => count,
    stop: () => new Promise((done) => server.close(done)),
  };
}

async function measure(kind) {
  const name = `webhooks, ${label(kind)}`;
  const db = freshDatabase(kind);
  if (!db) {
    record({ figure: `${name}: events delivered per second`, target: '—', measured: undefined, note: 'no PostgreSQL server on this machine' });
    return;
  }
  let portal;
  const receiver = await startReceiver();
  try {
    portal = await startServer(db.url, {
      PORTAL_UPTIME_INTERVAL_SECS: '0',
      PORTAL_WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
      RUST_LOG: 'warn',
    });
    const { token, org } = await orgAdmin(portal.url);
    const call = async (method, path, body) => {
      const answer = await fetch(`${portal.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          'x-org-id': org,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      });
      if (!answer.ok) throw new Error(`${method} ${path}: ${answer.status} ${await answer.text()}`);
      return answer;
    };
    await call('POST', '/api/dev/apps/register', {
      packageName: PACKAGE,
      name: 'Hooks',
      description: 'Benchmark app',
      publicUrl: 'https://hooks.bench.example',
      logoURL: 'https://cdn.bench.example/logo.png',
    });
    const regenerate = async () => {
      const started = performance.now();
      await call('POST', `/api/dev/apps/${PACKAGE}/api-key`);
      return performance.now() - started;
    };
    for (let i = 0; i < 5; i += 1) await regenerate();
    const without = [];
    for (let i = 0; i < scale.writes; i += 1) without.push(await regenerate());

    for (let i = 0; i < ENDPOINTS; i += 1) {
      await call('POST', `/api/orgs/${org}/webhooks`, { url: receiver.url, events: ['app.key_regenerated'] });
    }
    const withHooks = [];
    for (let i = 0; i < scale.writes; i += 1) withHooks.push(await regenerate());
    // Let the deliveries of those writes finish before the burst is timed.
    const deadline = () => performance.now() + 120_000;
    let until = deadline();
    while (receiver.count() < scale.writes * ENDPOINTS && performance.now() < until) {
      await new Promise((tick) => setTimeout(tick, 50));
    }

    // The burst: writes as fast as one client makes them, then until the receiver has every delivery.
    const before = receiver.count();
    const started = performance.now();
    for (let i = 0; i < scale.burst; i += 1) await regenerate();
    const queuedSecs = (performance.now() - started) / 1000;
    const expected = before + scale.burst * ENDPOINTS;
    until = deadline();
    while (receiver.count() < expected && performance.now() < until) {
      await new Promise((tick) => setTimeout(tick, 20));
    }
    const deliveredSecs = (performance.now() - started) / 1000;
    const delivered = receiver.count() - before;
    record({
      figure: `${name}: events queued and delivered per second to a local receiver (${scale.burst} writes × ${ENDPOINTS} endpoints)`,
      target: 'measured (no target yet)',
      measured: Math.round(delivered / deliveredSecs),
      unit: 'events/s',
      better: 'higher',
      note: `${(scale.burst * ENDPOINTS / queuedSecs).toFixed(0)} events/s queued by the writes; ${delivered} of ${scale.burst * ENDPOINTS} delivered in ${deliveredSecs.toFixed(1)} s`,
    });
    record({
      figure: `${name}: added latency of a write that queues an event (median of ${scale.writes}, ${ENDPOINTS} endpoints)`,
      target: 'measured (no target yet)',
      measured: median(withHooks) - median(without),
      unit: 'ms',
      note: `key regeneration median ${median(without).toFixed(2)} ms without an endpoint, ${median(withHooks).toFixed(2)} ms with ${ENDPOINTS}`,
    });
  } finally {
    await portal?.stop();
    await receiver.stop();
    db.drop();
  }
}

export async function webhookFigures() {
  for (const kind of ['sqlite', 'postgres']) await measure(kind);
}

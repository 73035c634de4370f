// Latency at a fixed arrival rate: an open-loop load generator that schedules requests by the clock and
// corrects coordinated omission, and the `make bench` rows of the mixed workload at 250, 500, 1,000 and 2,000
// requests per second.
//
// A closed loop (wrk's 64 connections) sends the next request when the previous one answered: when the
// server stalls, the loop stops asking, and the requests that real users would have sent during the stall
// are never measured (coordinated omission); and at full load its p99 is mostly the queue it builds itself
// (64 / throughput). Here request i is due at start + i / rate whatever happened before, and its latency is
// counted from when it was due, not from when it could be sent: a stall of 40 ms counts as 40 ms for every
// request due during it (`oha --latency-correction`, wrk2 do the same). Requests go out over a pool of
// keep-alive connections (as many as are busy at once, up to 256); a request that finds none free waits for
// one, and that wait is part of its latency too.
//
// The generator runs in the harness's own Node process, on the same two cores as the server: its own delay
// (a timer that fires late, a garbage collection) is counted as latency too, so the figures are an upper
// bound. `node bench/openloop.mjs --url URL --rate N --seconds S --path /healthz` drives one path alone.

import http from 'node:http';

/** Most connections open at once: more than any rate here keeps busy unless the server stalls. */
const MAX_CONNECTIONS = 256;
/** Seconds at the rate before the timed ones: requests sent, answers checked, latencies not kept. */
const WARMUP_SECONDS = 1;
/** How long after the last request is due its answers are awaited; later ones are errors (timeouts). */
const GRACE_MS = 5_000;
/**
 * An idle connection is closed after this long, before the server's keep-alive limit (actix-web's default is
 * 5 s): a request sent on a connection the server is closing at that moment fails with `ECONNRESET`, which
 * says nothing about the server under load (a browser's pool does the same).
 */
const IDLE_CLOSE_MS = 4_000;

/**
 * Sends `next(i)` (answers `{ method, path, headers, body }`) at `rate` requests/s for `seconds`, and answers
 * the latencies of the answers (ms, from when each was due), the errors (non-2xx, socket errors, timeouts)
 * and the worst second (when the slowest answers were due). The first `warmup` seconds are sent at the rate
 * but not timed.
 */
export async function openLoop({ url, rate, seconds, next, warmup = WARMUP_SECONDS }) {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: MAX_CONNECTIONS, timeout: IDLE_CLOSE_MS });
  const total = Math.round(rate * (seconds + warmup));
  /** Requests due before this are sent but not timed (connections opening, the generator's JIT). */
  const measuredFrom = Math.round(rate * warmup);
  const latencies = new Float64Array(total);
  let answered = 0;
  let errors = 0;
  const errorKinds = new Map();
  const failed = (kind) => {
    errors += 1;
    errorKinds.set(kind, (errorKinds.get(kind) ?? 0) + 1);
  };
  /** The slowest answer of each second of the run (by when it was due). */
  const worstPerSecond = new Float64Array(Math.ceil(seconds) + 2);
  let pending = 0;
  let allSent;
  const drained = new Promise((resolve) => (allSent = resolve));
  const settle = () => {
    pending -= 1;
    if (pending === 0 && sent === total) allSent();
  };

  const send = (i, dueAt) => {
    const { method, path, headers, body } = next(i);
    pending += 1;
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        method,
        path,
        headers: body === undefined ? headers : { ...headers, 'Content-Length': Buffer.byteLength(body) },
        agent,
      },
      (response) => {
        response.resume();
        response.on('end', () => {
          const latency = performance.now() - dueAt;
          if (response.statusCode >= 200 && response.statusCode < 300) {
            if (i < measuredFrom) {
              settle();
              return;
            }
            latencies[answered] = latency;
            answered += 1;
            const second = Math.floor((dueAt - start) / 1000 - warmup);
            if (latency > worstPerSecond[second]) worstPerSecond[second] = latency;
          } else {
            failed(`HTTP ${response.statusCode}`);
          }
          settle();
        });
      },
    );
    request.on('error', (error) => {
      failed(error.code ?? 'socket error');
      settle();
    });
    if (body !== undefined) request.write(body);
    request.end();
  };

  const start = performance.now();
  let sent = 0;
  // Every turn of the event loop sends whatever is due by now; the timer only wakes the loop up.
  await new Promise((done) => {
    const tick = () => {
      const now = performance.now();
      const due = Math.min(total, Math.floor(((now - start) * rate) / 1000) + 1);
      while (sent < due) {
        send(sent, start + (sent * 1000) / rate);
        sent += 1;
      }
      if (sent < total) setTimeout(tick, Math.max(0, Math.min(1, start + (sent * 1000) / rate - now)));
      else done();
    };
    tick();
  });
  if (pending === 0) allSent();
  const timedOut = await Promise.race([
    drained.then(() => false),
    new Promise((resolve) => setTimeout(() => resolve(true), GRACE_MS)),
  ]);
  if (timedOut) {
    for (let n = 0; n < pending; n += 1) failed('timeout');
  }
  agent.destroy();
  const sorted = latencies.subarray(0, answered).sort();
  const at = (q) => (answered ? sorted[Math.min(answered - 1, Math.ceil(q * answered) - 1)] : NaN);
  let worstSecond = 0;
  for (let s = 1; s < worstPerSecond.length; s += 1)
    if (worstPerSecond[s] > worstPerSecond[worstSecond]) worstSecond = s;
  return {
    rate,
    seconds,
    requests: total,
    timed: total - measuredFrom,
    answered,
    errors,
    errorKinds: Object.fromEntries(errorKinds),
    p50: at(0.5),
    p99: at(0.99),
    p999: at(0.999),
    max: answered ? sorted[answered - 1] : NaN,
    worstSecond,
    achieved: total / ((performance.now() - start) / 1000),
  };
}

/** The mix of bench/api-mixed.lua, as a function of the request's number: a cycle of ten requests. */
export function mixedRequests({ token, listOrg, apps, prefix, publishOrg, pool, poolPrefix }) {
  const name = (base, n) => `${base}${String(n).padStart(5, '0')}`;
  const headers = (org) => ({
    Authorization: `Bearer ${token}`,
    'x-org-id': org,
    'Content-Type': 'application/json',
  });
  let published = 0;
  let edits = 0;
  const request = (i) => {
    const slot = i % 10;
    if (slot === 0 || slot === 5) return { method: 'GET', path: '/api/dev/apps', headers: headers(listOrg) };
    if (slot === 3 || slot === 7) {
      edits += 1;
      return {
        method: 'PUT',
        path: `/api/dev/apps/${name(prefix, (i * 13) % apps)}`,
        headers: headers(listOrg),
        body: JSON.stringify({ description: `Edited by the open-loop benchmark, edit ${edits}.` }),
      };
    }
    if (slot === 4 || slot === 8) return { method: 'GET', path: `/api/orgs/${listOrg}`, headers: headers(listOrg) };
    if (slot === 9 && published < pool) {
      published += 1;
      return {
        method: 'POST',
        path: `/api/dev/apps/${name(poolPrefix, published - 1)}/publish`,
        headers: headers(publishOrg),
      };
    }
    return { method: 'GET', path: `/api/dev/apps/${name(prefix, i % apps)}`, headers: headers(listOrg) };
  };
  request.published = () => published;
  return request;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name, fallback) => {
    const at = process.argv.indexOf(name);
    return at >= 0 ? process.argv[at + 1] : fallback;
  };
  const path = arg('--path', '/healthz');
  const headers = Object.fromEntries(
    process.argv
      .flatMap((value, i) => (process.argv[i - 1] === '-H' ? [value] : []))
      .map((header) => header.split(/:\s*/, 2)),
  );
  const result = await openLoop({
    url: arg('--url', 'http://127.0.0.1:8080'),
    rate: Number(arg('--rate', 1000)),
    seconds: Number(arg('--seconds', 15)),
    next: () => ({ method: 'GET', path, headers }),
  });
  console.log(JSON.stringify(result, null, 2));
}

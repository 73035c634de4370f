// The health servers the uptime benchmark points its apps at: one process listening on many loopback
// host:port pairs (Linux answers every address of 127.0.0.0/8 on `lo`), each pair with one behaviour.
//
//   node bench/fleet.mjs <pairs> <first port> [slow ms]
//
// Pair i listens on its own address and port (`pairAddress`: four ports per address of 127.88.0.0/16). Its
// behaviour is `behaviourOf(i)`: of every 20 pairs, 16 answer healthy at once, 1 answers healthy after `slow ms` (3 s),
// 1 answers 500, 1 answers 200 with JSON that is not a health body, and 1 accepts and never answers. Any path
// ending in `/health` is answered, so that each app can have its own URL. Prints one JSON line
// `{"ready":true,"pairs":[{"url","behaviour"},...]}` once every pair listens, then, on each line read from
// stdin, `{"served":{behaviour: count}}`.

import { createServer } from 'node:http';
import { createInterface } from 'node:readline';

const PORTS_PER_ADDRESS = 4;

export function pairAddress(index, firstPort) {
  const host = Math.floor(index / PORTS_PER_ADDRESS);
  return {
    host: `127.88.${Math.floor(host / 250)}.${(host % 250) + 1}`,
    port: firstPort + (index % PORTS_PER_ADDRESS),
  };
}

export function behaviourOf(index) {
  switch (index % 20) {
    case 0:
      return 'silent';
    case 1:
      return 'slow';
    case 2:
      return 'failing-500';
    case 3:
      return 'failing-json';
    default:
      return 'healthy';
  }
}

async function main() {
  const pairs = Number(process.argv[2]);
  const firstPort = Number(process.argv[3]);
  const slowMs = Number(process.argv[4] ?? 3000);
  if (!Number.isInteger(pairs) || pairs < 1 || pairs > 250 * 250 * PORTS_PER_ADDRESS) {
    throw new Error(`usage: fleet.mjs <pairs> <first port> [slow ms]; got pairs=${process.argv[2]}`);
  }
  if (!Number.isInteger(firstPort) || firstPort < 1024 || firstPort + PORTS_PER_ADDRESS > 65535) {
    throw new Error(`the first port must be between 1024 and ${65535 - PORTS_PER_ADDRESS}`);
  }
  const served = {};
  const healthy = Buffer.from('{"status":"healthy"}');
  const wrong = Buffer.from('{"ok":true}');
  const answer = (res, status, body) => {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  };
  const handlers = {
    healthy: (res) => answer(res, 200, healthy),
    slow: (res) => setTimeout(() => answer(res, 200, healthy), slowMs),
    'failing-500': (res) => answer(res, 500, Buffer.from('{"status":"error"}')),
    'failing-json': (res) => answer(res, 200, wrong),
    silent: () => {},
  };
  const listening = [];
  const described = [];
  for (let index = 0; index < pairs; index += 1) {
    const behaviour = behaviourOf(index);
    const { host, port } = pairAddress(index, firstPort);
    const handle = handlers[behaviour];
    const server = createServer((req, res) => {
      served[behaviour] = (served[behaviour] ?? 0) + 1;
      if (!req.url.endsWith('/health')) return answer(res, 404, Buffer.from('{}'));
      return handle(res);
    });
    // Connections stay open between checks (the prober keeps them alive), and a silent pair holds its
    // requests until the prober gives up and closes.
    server.keepAliveTimeout = 120_000;
    server.headersTimeout = 130_000;
    server.requestTimeout = 0;
    listening.push(
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host, port, backlog: 1024 }, resolve);
      }),
    );
    described.push({ url: `http://${host}:${port}`, behaviour });
  }
  await Promise.all(listening);
  process.stdout.write(`${JSON.stringify({ ready: true, pairs: described })}\n`);
  createInterface({ input: process.stdin }).on('line', () => {
    process.stdout.write(`${JSON.stringify({ served })}\n`);
  });
  process.stdin.on('end', () => process.exit(0));
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  main().catch((error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  });
}

// A loopback proxy in front of PostgreSQL that counts the round trips its clients make: every simple query
// (a 'Q' message: BEGIN, COMMIT, a batch) and every extended-protocol exchange (the statements between two
// 'Sync' messages: Parse/Bind/Execute of one prepared statement) is one trip to the server and back. Unlike
// `pg_stat_statements`, it needs nothing preloaded on the server, and it counts at once (no 10 s publishing
// delay): a benchmark reads the counter around one request.
//
//   const proxy = await roundTripProxy('postgres://postgres@127.0.0.1:5432/db');
//   proxy.url      // the same database through the proxy
//   proxy.count()  // round trips so far, of every connection
//   proxy.close()

import { createConnection, createServer } from 'node:net';

/** Protocol codes of the messages a client sends before its startup message, and of the startup itself. */
const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;

export async function roundTripProxy(databaseUrl) {
  const target = new URL(databaseUrl);
  const upstream = { host: target.hostname, port: Number(target.port || 5432) };
  let trips = 0;
  const sockets = new Set();
  const proxy = createServer((client) => {
    // No Nagle on either hop, as libpq and the portal's own sockets: with it a small message can wait ~40 ms
    // for a delayed acknowledgement, which the portal alone never does (a request that waits that long for
    // the session cache's round may read the database instead: counted trips the portal would not make).
    const server = createConnection({ ...upstream, noDelay: true });
    client.setNoDelay(true);
    sockets.add(client);
    sockets.add(server);
    let buffered = Buffer.alloc(0);
    let started = false;
    client.on('data', (chunk) => {
      server.write(chunk);
      buffered = Buffer.concat([buffered, chunk]);
      // Walk the whole messages received so far; a partial one waits for its next chunk.
      for (;;) {
        if (!started) {
          if (buffered.length < 8) break;
          const length = buffered.readInt32BE(0);
          if (buffered.length < length) break;
          const code = buffered.readInt32BE(4);
          buffered = buffered.subarray(length);
          if (code !== SSL_REQUEST && code !== GSS_REQUEST) started = true;
          continue;
        }
        if (buffered.length < 5) break;
        const length = buffered.readInt32BE(1);
        if (buffered.length < length + 1) break;
        const type = String.fromCharCode(buffered[0]);
        if (type === 'Q' || type === 'S') trips += 1;
        buffered = buffered.subarray(length + 1);
      }
    });
    server.on('data', (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      server.destroy();
      sockets.delete(client);
      sockets.delete(server);
    };
    client.on('error', end).on('close', end);
    server.on('error', end).on('close', end);
  });
  await new Promise((listening) => proxy.listen(0, '127.0.0.1', listening));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.address().port);
  // The client must not switch to TLS: the proxy reads the messages.
  url.searchParams.set('sslmode', 'disable');
  return {
    url: url.toString(),
    count: () => trips,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((closed) => proxy.close(closed));
    },
  };
}

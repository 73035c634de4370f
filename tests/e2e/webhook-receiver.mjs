// A webhook receiver for the tests: verifies every delivery with the `standardwebhooks` package, as a
// team's own system would, and records it. Prints `listening <port>` when ready.
//
// Control (JSON):
//   PUT  /_secrets  {"secrets": ["whsec_…", …]}   the secrets to verify with (each tried on its own)
//   PUT  /_answers  {"answers": [{"status": 500, "delayMs": 0}, …]}   the next answers, in order; then 204
//   GET  /_received   every delivery: {id, timestamp, type, body, signatures, verifiedWith: [secret index…]}
import http from 'node:http';
import { Webhook } from 'standardwebhooks';

let secrets = [];
let answers = [];
const received = [];

const readBody = (request) =>
  new Promise((resolve, reject) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });

const server = http.createServer(async (request, response) => {
  const body = await readBody(request);
  const reply = (status, value) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(value === undefined ? '' : JSON.stringify(value));
  };
  if (request.url === '/_secrets' && request.method === 'PUT') {
    secrets = JSON.parse(body).secrets;
    return reply(204);
  }
  if (request.url === '/_answers' && request.method === 'PUT') {
    answers = JSON.parse(body).answers;
    return reply(204);
  }
  if (request.url === '/_received' && request.method === 'GET') {
    return reply(200, received);
  }
  const headers = {
    'webhook-id': request.headers['webhook-id'],
    'webhook-timestamp': request.headers['webhook-timestamp'],
    'webhook-signature': request.headers['webhook-signature'],
  };
  const verifiedWith = [];
  secrets.forEach((secret, index) => {
    try {
      new Webhook(secret).verify(body, headers);
      verifiedWith.push(index);
    } catch {
      // Not signed with this secret.
    }
  });
  let type = null;
  try {
    type = JSON.parse(body).type;
  } catch {
    // Recorded as it came.
  }
  received.push({
    id: headers['webhook-id'],
    timestamp: headers['webhook-timestamp'],
    signatures: headers['webhook-signature'],
    path: request.url,
    type,
    body,
    verifiedWith,
  });
  const answer = answers.shift() ?? { status: 204 };
  setTimeout(() => reply(answer.status, { ok: answer.status < 300 }), answer.delayMs ?? 0);
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});

// A local OpenID Connect provider for the OAuth sign-in tests (oauth2-mock-server, auto-approving).
//
//   node server.js <port> <alg>        alg: RS256 (default) or ES256
//
// Prints one line `READY <issuer>` when it listens on 127.0.0.1:<port> (0 picks a free port). Exits when its
// standard input closes, so that a test that dies takes it along.
//
// Who signs in is chosen by the `login_hint` added to the authorization URL, as `sub|email|verified|twist`:
// `verified` is `true`, `false` or `"true"` (a JSON string, as Apple sends it); `twist` spoils the ID token to
// test its checks: `nonce`, `aud`, `iss`, `expired`, `unsigned`. Without a hint the user is
// `mock-user|mock@example.com|true|`.
'use strict';

const { OAuth2Server } = require('oauth2-mock-server');

const port = Number(process.argv[2] || 0);
const alg = process.argv[3] || 'RS256';

const hints = new Map(); // authorization code -> login hint

function parseHint(text) {
  const [sub, email, verified, twist] = (text || 'mock-user|mock@example.com|true|').split('|');
  const claims = { sub };
  if (email) claims.email = email;
  if (verified === 'true') claims.email_verified = true;
  else if (verified === '"true"') claims.email_verified = 'true';
  else if (verified === 'false') claims.email_verified = false;
  return { claims, twist: twist || '' };
}

async function main() {
  const server = new OAuth2Server();
  await server.issuer.keys.generate(alg);

  server.service.on('beforeAuthorizeRedirect', (redirect, req) => {
    const code = redirect.url.searchParams.get('code');
    if (code) hints.set(code, typeof req.query.login_hint === 'string' ? req.query.login_hint : '');
  });

  server.service.on('beforeTokenSigning', (token, req) => {
    const code = req.body && req.body.code;
    if (!code || !hints.has(code)) return;
    const { claims, twist } = parseHint(hints.get(code));
    Object.assign(token.payload, claims, { name: `User ${claims.sub}` });
    // The same hook runs for the access token and then for the ID token, the one with an audience.
    if (token.payload.aud !== undefined) {
      if (twist === 'nonce') token.payload.nonce = 'not-the-nonce';
      if (twist === 'aud') token.payload.aud = 'another-client';
      if (twist === 'iss') token.payload.iss = 'https://elsewhere.example';
      if (twist === 'expired') token.payload.exp = Math.floor(Date.now() / 1000) - 600;
      if (twist === 'unsigned') token.header.kid = 'unknown-key';
      hints.delete(code);
    }
  });

  await server.start(port, '127.0.0.1');
  server.issuer.url = `http://127.0.0.1:${server.address().port}`;
  process.stdout.write(`READY ${server.issuer.url}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => server.stop().then(() => process.exit(0)));
}

main().catch((error) => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(1);
});

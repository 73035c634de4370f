// The Express reference of `make bench`'s API figures: a plain Express endpoint answering every GET with the
// bytes of one file, as `application/json` with `Cache-Control: no-store`, the way the portal answers the
// measured call. One Node process, as Express is usually run. ETags are off: the portal sends none.
//
//   node bench/reference-express.mjs <PORT> <BODY-FILE>

import express from 'express';
import { readFileSync } from 'node:fs';

const [port, file] = process.argv.slice(2);
if (!port || !file || !/^\d+$/.test(port)) {
  console.error('usage: node bench/reference-express.mjs <PORT> <BODY-FILE>');
  process.exit(2);
}
const body = readFileSync(file);
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.get(/.*/, (_request, response) => {
  response.set('Cache-Control', 'no-store');
  response.type('application/json');
  response.send(body);
});
app.listen(Number(port), '127.0.0.1', () => console.log(`listening on 127.0.0.1:${port}`));

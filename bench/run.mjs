// `make bench`: measures the portal's figures next to their targets and writes target/bench/report.md and
// report.json. `--short` (run by `make test`) measures the same figures with fewer repetitions and smaller loads,
// so that the harness cannot rot; no test asserts a figure.
//
//   node bench/run.mjs [--short] [--only server,web,api,writes,monitor,month,audit,webhooks,soak] [--pages /dashboard] [--soak-minutes N] [--server PATH] [--frontend DIR]
//
// Each part lives in its own module: server.mjs (memory, cold start), web.mjs (bundles, Lighthouse), api.mjs
// (requests/s and latency under load, closed loop and at fixed rates with openloop.mjs), writes.mjs (PostgreSQL
// round trips per request of the writes and the organization's read, counted by pgwire.mjs), monitor.mjs
// (uptime monitor and month view), audit.mjs (the audit log's newest page over a million entries), webhooks.mjs
// (events delivered per second, latency a queued event adds), soak.mjs (steady traffic for minutes: errors, p99,
// RSS per minute);
// lib.mjs holds what they share.

import { existsSync, mkdirSync } from 'node:fs';
import { apiFigures } from './api.mjs';
import { auditFigures } from './audit.mjs';
import { only, outDir, server, writeReport } from './lib.mjs';
import { monitorFigures, monthFigures } from './monitor.mjs';
import { serverFigures } from './server.mjs';
import { soakFigures } from './soak.mjs';
import { bundleFigures, lighthouseFigures } from './web.mjs';
import { webhookFigures } from './webhooks.mjs';
import { writeFigures } from './writes.mjs';

const parts = {
  server: serverFigures,
  web: async () => {
    bundleFigures();
    await lighthouseFigures();
  },
  api: apiFigures,
  writes: writeFigures,
  monitor: monitorFigures,
  month: monthFigures,
  audit: auditFigures,
  webhooks: webhookFigures,
  soak: soakFigures,
};

if (!existsSync(server)) {
  console.error(`no server binary at ${server}: build it first (make bench does)`);
  process.exit(2);
}
const unknown = only.filter((name) => !(name in parts));
if (unknown.length) {
  console.error(`unknown part(s) ${unknown.join(', ')}: choose from ${Object.keys(parts).join(', ')}`);
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });
for (const [name, measure] of Object.entries(parts)) {
  if (only.length === 0 || only.includes(name)) await measure();
}
writeReport();

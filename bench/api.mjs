// The API's figures: authenticated `GET /api/dev/apps` against plain actix-web and Express endpoints returning the
// same bytes, and a mixed workload, on SQLite and PostgreSQL.

import { record } from './lib.mjs';

export async function apiFigures() {
  const later = [
    ['authenticated GET /api/dev/apps, 100 apps, 64 connections (SQLite, PostgreSQL)', '≥ 50% of plain actix-web; p99 ≤ 5 ms'],
    ['the same call against a plain Express endpoint', '≥ 10× its requests/s'],
    ['mixed workload at 64 connections (both databases)', '0 errors; p99 ≤ 20 ms'],
  ];
  for (const [figure, target] of later) {
    record({ figure, target, measured: undefined, note: 'not measured yet: needs a load generator run' });
  }
}

// Counts what a PostgreSQL database ran between two moments, from its own counters (`pg_stat_database`):
// every statement outside a transaction is one transaction, so for the reads of a request the transactions
// are its statements (a write is one transaction of several). `pg_stat_statements` would count statements
// themselves, but it must be preloaded when the server starts, which a benchmark should not do to a shared
// server. PostgreSQL publishes a backend's counters up to ~10 s late (an idle backend flushes them after
// 10 s), hence the waits; what the server does while idle is measured over as long and taken off.

import { execFileSync } from 'node:child_process';
import { sleep } from './lib.mjs';

const SETTLE_MS = 12_000;

/** The database's counters, read from another database (so that reading them adds nothing). */
function counters(databaseUrl) {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const [transactions, tuples] = execFileSync('psql', [
    url.toString(),
    '-qAt',
    '-F',
    ' ',
    '-c',
    `SELECT xact_commit + xact_rollback, tup_returned + tup_fetched FROM pg_stat_database WHERE datname = '${name.replaceAll("'", "''")}'`,
  ])
    .toString()
    .trim()
    .split(' ')
    .map(Number);
  return { transactions, tuples, at: performance.now() };
}

/**
 * Starts counting once what was done before has been published; `total()` answers what was run since,
 * less what the server does while idle for as long: `{ transactions, tuples, idle }`.
 */
export async function statementCounter(databaseUrl) {
  await sleep(SETTLE_MS);
  const start = counters(databaseUrl);
  return {
    async total() {
      await sleep(SETTLE_MS);
      const end = counters(databaseUrl);
      await sleep(SETTLE_MS);
      const after = counters(databaseUrl);
      // The idle server's rate, over the time counted.
      const rate = (after.transactions - end.transactions) / (after.at - end.at);
      const idle = Math.round(rate * (end.at - start.at));
      return {
        transactions: end.transactions - start.transactions - idle,
        tuples: end.tuples - start.tuples,
        idle,
      };
    },
  };
}

// The server's own figures: idle memory after start and cold start including migrations, on SQLite and PostgreSQL.

import { freshPostgres, median, MB, record, rssBytes, short, sleep, startServer } from './lib.mjs';

export async function serverFigures() {
  const runs = short ? 1 : 5;
  const sqlite = [];
  let idle;
  for (let i = 0; i < runs; i += 1) {
    const started = await startServer();
    sqlite.push(started.startupMs);
    if (i === 0) {
      await sleep(short ? 500 : 2000);
      idle = rssBytes(started.child.pid);
    }
    await started.stop();
  }
  record({
    figure: 'server idle RSS after start (SQLite)',
    target: '≤ 30 MB',
    limit: 30 * MB,
    measured: idle,
    unit: 'bytes',
  });
  record({
    figure: `cold start incl. migrations of an empty SQLite database (median of ${runs})`,
    target: '≤ 1 s',
    limit: 1000,
    measured: median(sqlite),
    unit: 'ms',
  });
  if (short) return;
  const postgres = [];
  for (let i = 0; i < runs; i += 1) {
    const database = freshPostgres();
    if (!database) break;
    try {
      const started = await startServer(database.url);
      postgres.push(started.startupMs);
      await started.stop();
    } finally {
      database.drop();
    }
  }
  record({
    figure: `cold start incl. migrations of an empty PostgreSQL database (median of ${runs})`,
    target: '≤ 1 s',
    limit: 1000,
    measured: postgres.length ? median(postgres) : undefined,
    unit: 'ms',
    note: postgres.length ? undefined : 'no PostgreSQL on 127.0.0.1:5432',
  });
}


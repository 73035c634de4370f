// The server's own figures: idle memory after start and cold start including migrations, on SQLite and PostgreSQL.

import { freshPostgres, median, MB, record, rssBytes, short, sleep, startServer } from './lib.mjs';

export async function serverFigures() {
  const runs = short ? 1 : 5;
  const sqlite = [];
  const idle = [];
  for (let i = 0; i < runs; i += 1) {
    const started = await startServer();
    sqlite.push(started.startupMs);
    // Every start's (the first one's alone moved by up to a megabyte between runs of the same binary).
    await sleep(short ? 500 : 2000);
    idle.push(rssBytes(started.child.pid));
    await started.stop();
  }
  const mb = (bytes) => (bytes / MB).toFixed(1);
  record({
    figure: `server idle RSS after start (SQLite, median of ${runs})`,
    target: '≤ 30 MB',
    limit: 30 * MB,
    measured: median(idle),
    unit: 'bytes',
    note: `VmRSS ${short ? 0.5 : 2} s after each start: ${idle.map(mb).join(', ')} MB (spread ${mb(Math.min(...idle))}–${mb(Math.max(...idle))})`,
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


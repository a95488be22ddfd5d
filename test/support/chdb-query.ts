/**
 * Child-process helper for e2e tests: `node --import tsx test/support/chdb-query.ts <data dir> <sql>`
 * prints the rows as JSON. chDB is one engine per process, so tests read a stopped service's (or a
 * finished CLI's) ClickHouse data from a child instead of opening it in the test runner.
 */
import path from 'node:path';
import { openChdbStore } from '../../services/analytics/clickhouse-store.js';

const [dataDir, sql] = process.argv.slice(2);
if (!dataDir || !sql) {
  process.stderr.write('usage: chdb-query.ts <data dir> <sql>\n');
  process.exit(2);
}
const store = await openChdbStore({ path: path.join(dataDir, 'chdb'), database: 'tapeline' });
try {
  process.stdout.write(`${JSON.stringify(await store.query(sql))}\n`);
} finally {
  await store.close();
}

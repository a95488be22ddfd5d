/**
 * Child process of analytics-template.ts: `node --import tsx test/support/analytics-template-build.ts
 * <directory> <database>` migrates a new chDB store there and closes it.
 */
import { openChdbStore } from '../../services/analytics/clickhouse-store.js';
import { migrate } from '../../services/analytics/migrate.js';

const [directory, database] = process.argv.slice(2);
if (!directory || !database) {
  process.stderr.write('usage: analytics-template-build.ts <directory> <database>\n');
  process.exit(2);
}
const store = await openChdbStore({ path: directory, database });
await migrate(store);
await store.close();

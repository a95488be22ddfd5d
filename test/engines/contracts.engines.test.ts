/**
 * The Foundation contract suites against the real-engine adapter of every port: Kafka (kafkajs),
 * PostgreSQL (`pg`) and a ClickHouse server over HTTP (the chDB-backed HTTP harness).
 * The embedded twins run the same suites in test/eventlog, test/control and test/analytics.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openHttpStore } from '../../services/analytics/clickhouse-store.js';
import { migrateControlStore } from '../../services/control/migrate.js';
import { openPgStore } from '../../services/control/pg-store.js';
import { openKafkaEventLog } from '../../services/eventlog/kafka/kafka-event-log.js';
import type { EventLog } from '../../services/ports/event-log.js';
import { describeAnalyticsStoreContract } from '../contracts/analytics-store.contract.js';
import { describeControlStoreContract } from '../contracts/control-store.contract.js';
import { describeEventLogContract } from '../contracts/event-log.contract.js';
import { startClickHouseHttpHarness, type ClickHouseHttpHarness } from '../support/clickhouse-http-harness.js';
import { REPO_ROOT } from '../support/processes.js';
import { createDatabase, engineAddresses } from './engines.js';

const open = () => openKafkaEventLog({ brokers: [engineAddresses().kafkaBrokers], sessionTimeoutMs: 6_000 });

describeEventLogContract('kafka (kafkajs)', async () => {
  const logs: EventLog[] = [];
  const log = await open();
  logs.push(log);
  return {
    log,
    reopen: async () => {
      const again = await open();
      logs.push(again);
      return again;
    },
    cleanup: async () => {
      for (const each of logs) await each.close();
    },
  };
});

describeControlStoreContract('postgresql (pg)', {
  async open() {
    const url = await createDatabase('contract');
    return { store: await openPgStore({ connectionString: url }), reopen: () => openPgStore({ connectionString: url }) };
  },
});

let harness: ClickHouseHttpHarness;
const harnessDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-ch-harness-'));
beforeAll(async () => {
  harness = await startClickHouseHttpHarness(harnessDir);
}, 60_000);
afterAll(async () => {
  await harness?.stop();
  fs.rmSync(harnessDir, { recursive: true, force: true });
});
describeAnalyticsStoreContract('clickhouse over http (chDB-backed harness)', (database) => openHttpStore({ url: harness.url, database }));

test('postgresql: processes starting at once migrate the control store exactly once between them', async () => {
  const url = await createDatabase('concurrent');
  const stores = await Promise.all(Array.from({ length: 4 }, () => openPgStore({ connectionString: url })));
  try {
    const applied = await Promise.all(stores.map((store) => migrateControlStore(store)));
    expect(applied.flat().sort()).toEqual(readdirMigrations());
    const [row] = await stores[0]!.query<{ n: string }>('SELECT count(*) AS n FROM schema_migrations');
    expect(Number(row!.n)).toBe(readdirMigrations().length);
  } finally {
    await Promise.all(stores.map((store) => store.close()));
  }
});

function readdirMigrations(): string[] {
  return fs
    .readdirSync(path.join(REPO_ROOT, 'services/control/migrations'))
    .filter((f) => /^\d{4}_.+\.sql$/.test(f))
    .sort();
}

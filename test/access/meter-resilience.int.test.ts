/**
 * A control-store hiccup during a usage flush must neither take the process down (an unhandled
 * rejection exits Node) nor stop metering: the counts wait for the next flush and arrive once.
 */
import { Meter } from '../../services/access/meter.js';
import { loadConfig } from '../../services/config.js';
import { Accounts } from '../../services/control/accounts.js';
import { migrateControlStore } from '../../services/control/migrate.js';
import { freshControlStore } from '../support/control-template.js';
import type { ControlStore } from '../../services/ports/control-store.js';
import { waitFor } from '../support/http.js';

let store: ControlStore;
let failing = 0;
/** The real store, except that the next `failing` transactions fail as a dropped connection would. */
let flaky: ControlStore;

beforeAll(async () => {
  store = await freshControlStore();
  await migrateControlStore(store);
  flaky = {
    query: (sql, params) => store.query(sql, params),
    transaction: (work) => {
      if (failing > 0) {
        failing--;
        return Promise.reject(Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' }));
      }
      return store.transaction(work);
    },
    close: () => store.close(),
  };
}, 60_000);
afterAll(() => store.close());

test('a failed periodic flush is reported, not thrown, and the counts arrive at the next flush', async () => {
  const { access } = loadConfig({});
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  const reported: unknown[] = [];
  const meter = new Meter(flaky, { ...access, flushIntervalMs: 50, onFlushError: (error) => reported.push(error) });
  try {
    const account = (await new Accounts(store).registerAgent('metered')).account_id;
    for (let i = 0; i < 3; i++) expect((await meter.charge(account)).ok).toBe(true);
    failing = 2;
    meter.start();
    const stored = async () =>
      Number(
        (await store.query<{ calls: string }>('SELECT calls::text AS calls FROM usage_counters WHERE account_id = $1', [account]))[0]
          ?.calls ?? 0,
      );
    // Two flushes fail, the third writes the three calls, once.
    expect(await waitFor(async () => (await stored()) === 3, 10_000, 'the calls to reach the store')).toBe(true);
    expect(reported.length).toBeGreaterThanOrEqual(2);
    expect(meter.stats().flush_failures).toBeGreaterThanOrEqual(2);
    // Metering keeps working after the outage: new calls are flushed too, and nothing is counted twice.
    expect((await meter.charge(account)).ok).toBe(true);
    await meter.flush();
    expect(await stored()).toBe(4);
    expect(unhandled).toEqual([]);
  } finally {
    await meter.stop();
    process.off('unhandledRejection', onUnhandled);
  }
});

test('an explicit flush still tells its caller about a failure, and the next one recovers', async () => {
  const { access } = loadConfig({});
  const meter = new Meter(flaky, { ...access, flushIntervalMs: 60_000 });
  const account = (await new Accounts(store).registerAgent('explicit')).account_id;
  expect((await meter.charge(account)).ok).toBe(true);
  failing = 1;
  await expect(meter.flush()).rejects.toThrow(/Connection terminated/);
  await meter.flush();
  const [row] = await store.query<{ calls: string }>('SELECT calls::text AS calls FROM usage_counters WHERE account_id = $1', [account]);
  expect(Number(row?.calls)).toBe(1);
  await meter.stop();
});

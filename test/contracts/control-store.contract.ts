/**
 * What every control-store adapter must do. Runs against PGlite now and PostgreSQL (`pg`) with
 * "Real engines". `open` returns a store on a fresh, empty database; `reopen` the same database again.
 */
import type { ControlStore } from '../../services/ports/control-store.js';
import { migrateControlStore } from '../../services/control/migrate.js';
import { Accounts } from '../../services/control/accounts.js';

export interface ControlStoreHarness {
  open(): Promise<{ store: ControlStore; reopen: () => Promise<ControlStore> }>;
}

export function describeControlStoreContract(adapterName: string, harness: ControlStoreHarness): void {
  describe(`control store contract: ${adapterName}`, () => {
    let store: ControlStore;
    let reopen: () => Promise<ControlStore>;

    beforeAll(async () => {
      ({ store, reopen } = await harness.open());
    });
    afterAll(async () => {
      await store.close();
    });

    test('migrations apply from an empty database, once', async () => {
      // Every migration file, in order (other work adds numbered files; the list is not pinned here).
      const applied = await migrateControlStore(store);
      expect(applied[0]).toBe('0001_accounts_and_keys.sql');
      expect(applied).toEqual([...applied].sort());
      expect(applied).toContain('0002_billing_and_usage.sql');
      expect(applied).toContain('0010_webhooks.sql');
      expect(await migrateControlStore(store)).toEqual([]);
    });

    test('parameters are bound, not interpolated', async () => {
      const [row] = await store.query<{ v: string }>('SELECT $1::text AS v', ["'; DROP TABLE accounts; --"]);
      expect(row!.v).toBe("'; DROP TABLE accounts; --");
    });

    test('a transaction commits when its work resolves and rolls back when it rejects', async () => {
      await store.transaction((tx) => tx.query("INSERT INTO accounts (name, kind) VALUES ('kept', 'agent')"));
      await expect(
        store.transaction(async (tx) => {
          await tx.query("INSERT INTO accounts (name, kind) VALUES ('discarded', 'agent')");
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      const names = (await store.query<{ name: string }>('SELECT name FROM accounts ORDER BY id')).map((r) => r.name);
      expect(names).toContain('kept');
      expect(names).not.toContain('discarded');
    });

    test('constraint violations reject', async () => {
      await expect(store.query("INSERT INTO accounts (name, kind) VALUES ('x', 'martian')")).rejects.toThrow();
    });

    test('keys: issued once, authenticated by hash, malformed or unknown keys rejected, data survives reopen', async () => {
      const accounts = new Accounts(store);
      const issued = await accounts.registerAgent('contract-agent');
      expect(issued.api_key).toMatch(/^aif_[0-9A-Za-z]{38}$/);
      const stored = await store.query<{ key_hash: string }>('SELECT key_hash FROM api_keys');
      expect(stored.map((r) => r.key_hash)).not.toContain(issued.api_key);
      expect(await accounts.authenticate(issued.api_key)).toMatchObject({ name: 'contract-agent', kind: 'agent' });
      expect(await accounts.authenticate(issued.api_key.slice(0, -1) + (issued.api_key.endsWith('a') ? 'b' : 'a'))).toBeNull();
      expect(await accounts.authenticate('aif_nope')).toBeNull();

      await store.close();
      store = await reopen();
      expect(await new Accounts(store).authenticate(issued.api_key)).toMatchObject({ name: 'contract-agent' });
    });
  });
}

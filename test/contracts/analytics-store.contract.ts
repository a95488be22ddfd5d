/**
 * What every analytics adapter must do. Runs against chDB now and against a ClickHouse HTTP
 * endpoint with "Real engines"; each test gets its own database so a shared server works too.
 */
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import { migrate, readMigrations } from '../../services/analytics/migrate.js';
import { readParts } from '../../services/analytics/read-parts.js';
import { ReplacingCompaction } from '../../services/analytics/replacing-compaction.js';

export type OpenStore = (database: string) => Promise<AnalyticsStore>;

const trade = (overrides: Record<string, unknown>) => ({
  trade_id: 't1',
  market_id: '0xmarket',
  market_title: 'Will it rain?',
  asset_id: '7'.repeat(78),
  wallet: `0x${'a'.repeat(40)}`,
  side: 'buy',
  outcome: 'Yes',
  outcome_index: 0,
  price: 0.4,
  yes_price: 0.4,
  size: 10,
  size_usdc: 4,
  ts: '2026-01-01T00:01:02.123Z',
  tx_hash: '0xtx',
  source: 'simulator',
  ingested_at: '2026-01-01T00:01:03.000Z',
  ...overrides,
});

export function describeAnalyticsStoreContract(adapterName: string, open: OpenStore): void {
  describe(`analytics store contract: ${adapterName}`, () => {
    let counter = 0;
    const opened: AnalyticsStore[] = [];
    const fresh = async () => {
      const store = await open(`contract_${process.pid}_${Date.now()}_${counter++}`);
      opened.push(store);
      await migrate(store);
      return store;
    };
    afterAll(async () => {
      for (const store of opened) await store.close();
    });

    test('migrations apply from an empty database, once', async () => {
      const store = await fresh();
      const tables = await store.query<{ name: string }>('SELECT name FROM system.tables WHERE database = {db:String} ORDER BY name', {
        db: store.database,
      });
      const names = tables.map((t) => t.name);
      for (const expected of ['markets', 'trades', 'candles_5m', 'candles_1h', 'candles_1d', 'candles_5m_mv', 'schema_migrations']) {
        expect(names).toContain(expected);
      }
      expect(await migrate(store)).toEqual([]);
      const versions = await store.query<{ n: number }>('SELECT count() AS n FROM schema_migrations');
      expect(Number(versions[0]!.n)).toBe(readMigrations().length);
    });

    test('insert then query round-trips values, with typed parameters', async () => {
      const store = await fresh();
      await store.insert('trades', [trade({})]);
      const rows = await store.query<{ asset_id: string; price: number; ts: string }>(
        'SELECT asset_id, price, ts FROM trades WHERE wallet = {wallet:String}',
        { wallet: `0x${'a'.repeat(40)}` },
      );
      expect(rows).toEqual([{ asset_id: '7'.repeat(78), price: 0.4, ts: '2026-01-01 00:01:02.123' }]);
    });

    test('a retried insert with the same dedup token adds nothing to the table or its views', async () => {
      const store = await fresh();
      const batch = [trade({ trade_id: 'a' }), trade({ trade_id: 'b', yes_price: 0.6, ts: '2026-01-01T00:03:00.000Z' })];
      await store.insert('trades', batch, { dedupToken: 'topic-0-0-1' });
      await store.insert('trades', batch, { dedupToken: 'topic-0-0-1' });
      const [candle] = await store.query<{ o: number; h: number; l: number; c: number; v: number; n: number }>(
        `SELECT argMinMerge(open) AS o, max(high) AS h, min(low) AS l, argMaxMerge(close) AS c, sum(volume_usdc) AS v, sum(trade_count) AS n
         FROM candles_5m GROUP BY market_id, bucket`,
      );
      expect(candle).toEqual({ o: 0.4, h: 0.6, l: 0.4, c: 0.6, v: 8, n: 2 });
      const [count] = await store.query<{ n: number }>('SELECT count() AS n FROM trades');
      expect(Number(count!.n)).toBe(2);
    });

    test('an insert with fanOut (views fed in parallel) feeds every view once, and its retry with the same token adds nothing', async () => {
      const store = await fresh();
      await store.command(
        'CREATE TABLE fan_source (k String, v Int64) ENGINE = MergeTree ORDER BY k SETTINGS non_replicated_deduplication_window = 100',
      );
      for (const view of ['fan_sum', 'fan_count']) {
        await store.command(
          `CREATE TABLE ${view} (k String, n SimpleAggregateFunction(sum, Int64)) ENGINE = AggregatingMergeTree ORDER BY k SETTINGS non_replicated_deduplication_window = 100`,
        );
      }
      await store.command('CREATE MATERIALIZED VIEW fan_sum_mv TO fan_sum AS SELECT k, sum(v) AS n FROM fan_source GROUP BY k');
      await store.command(
        'CREATE MATERIALIZED VIEW fan_count_mv TO fan_count AS SELECT k, toInt64(count()) AS n FROM fan_source GROUP BY k',
      );
      const rows = [
        { k: 'a', v: 5 },
        { k: 'b', v: -2 },
        { k: 'a', v: 7 },
      ];
      await store.insert('fan_source', rows, { fanOut: true, dedupToken: 'fan-0' });
      await store.insert('fan_source', rows, { fanOut: true, dedupToken: 'fan-0' });
      await store.insert('fan_source', [{ k: 'b', v: 10 }], { fanOut: true });
      const read = (table: string) => store.query<{ k: string; n: number }>(`SELECT k, sum(n) AS n FROM ${table} GROUP BY k ORDER BY k`);
      expect(await read('fan_sum')).toEqual([
        { k: 'a', n: 12 },
        { k: 'b', n: 8 },
      ]);
      expect(await read('fan_count')).toEqual([
        { k: 'a', n: 2 },
        { k: 'b', n: 2 },
      ]);
    });

    test('rows inserted as JSON lines (objects, or arrays of named columns) are stored as insert stores them, with the same settings: token, time input, unknown keys', async () => {
      const store = await fresh();
      const batch = [trade({ trade_id: 'a' }), trade({ trade_id: 'b', yes_price: 0.6, ts: '2026-01-01T00:03:00.000Z' })];
      const lines = batch.map((row) => JSON.stringify(row)).join('\n');
      await store.insertJsonLines('trades', lines, { dedupToken: 'text-0-0-1' });
      await store.insertJsonLines('trades', lines, { dedupToken: 'text-0-0-1' });
      await store.insertJsonLines('trades', '');
      // With columns, each line is an array of their values (JSONCompactEachRow).
      const c = trade({ trade_id: 'c', market_id: '0xother', ts: '2026-01-02T00:00:00.500Z' });
      await store.insertJsonLines('trades', JSON.stringify(Object.values(c)), { columns: Object.keys(c) });
      const rows = await store.query<{ trade_id: string; market_id: string; ts: string }>(
        'SELECT trade_id, market_id, ts FROM trades ORDER BY trade_id',
      );
      expect(rows).toEqual([
        { trade_id: 'a', market_id: '0xmarket', ts: '2026-01-01 00:01:02.123' },
        { trade_id: 'b', market_id: '0xmarket', ts: '2026-01-01 00:03:00.000' },
        { trade_id: 'c', market_id: '0xother', ts: '2026-01-02 00:00:00.500' },
      ]);
      const [candle] = await store.query<{ v: number; n: number }>(
        "SELECT sum(volume_usdc) AS v, sum(trade_count) AS n FROM candles_5m WHERE market_id = '0xmarket' GROUP BY market_id",
      );
      expect(candle).toEqual({ v: 8, n: 2 });
      // A key that names no column fails the insert, as with insert.
      await expect(store.insertJsonLines('trades', JSON.stringify(trade({ trade_id: 'c', no_such_column: 1 })))).rejects.toThrow();
    });

    test('control: batches that overlap but differ are both counted, so the sink must drop known ids', async () => {
      const store = await fresh();
      await store.insert('trades', [trade({ trade_id: 'a' })], { dedupToken: 'topic-0-0-0' });
      await store.insert('trades', [trade({ trade_id: 'a' }), trade({ trade_id: 'c' })], { dedupToken: 'topic-0-1-2' });
      const [candle] = await store.query<{ n: number }>('SELECT sum(trade_count) AS n FROM candles_5m');
      const [distinct] = await store.query<{ n: number }>('SELECT uniqExact(trade_id) AS n FROM trades');
      expect(Number(distinct!.n)).toBe(2);
      expect(Number(candle!.n)).toBe(3);
    });

    test("an INSERT ... SELECT after a tokened insert is no retry of another: an earlier insert's token does not carry over", async () => {
      const store = await fresh();
      await store.command(
        'CREATE TABLE copies (n UInt64) ENGINE = MergeTree ORDER BY n SETTINGS non_replicated_deduplication_window = 100',
      );
      await store.insert('trades', [trade({ trade_id: 'a' })], { dedupToken: 'topic-0-0-0' });
      await store.command('INSERT INTO copies SELECT number FROM numbers(2)');
      await store.command('INSERT INTO copies SELECT number + 10 FROM numbers(3)');
      const [count] = await store.query<{ n: number }>('SELECT count() AS n FROM copies');
      expect(Number(count!.n)).toBe(5);
    });

    test('readParts returns each part as the same JSON a scalar subquery column gives, in one statement', async () => {
      const store = await fresh();
      await store.insert('trades', [trade({ trade_id: 'a', size: 10 }), trade({ trade_id: 'b', size: 2, market_id: '0xother' })]);
      const parts = {
        sizes:
          'SELECT groupArray((trade_id, market_id, size, toString(toInt64(size * 1e15)), toUInt32(size))) AS value FROM (SELECT * FROM trades WHERE market_id IN {markets:Array(String)} ORDER BY trade_id)',
        nulls: "SELECT (toNullable(0.25), CAST(NULL, 'Nullable(Float64)'), [1.5, 2], toUInt64(7)) AS value",
        none: "SELECT groupArray(trade_id) AS value FROM trades WHERE market_id = 'none'",
      };
      const params = { markets: ['0xmarket', '0xother'] };
      const read = await readParts<Record<keyof typeof parts, unknown>>(store, parts, params);
      const [scalars] = await store.query<Record<string, unknown>>(
        `SELECT ${Object.entries(parts)
          .map(([name, sql]) => `(${sql}) AS ${name}`)
          .join(', ')}`,
        params,
      );
      expect(read).toEqual(scalars);
      expect(read.sizes).toEqual([
        ['a', '0xmarket', 10, '10000000000000000', 10],
        ['b', '0xother', 2, '2000000000000000', 2],
      ]);
      expect(read.nulls).toEqual([0.25, null, [1.5, 2], 7]);
      expect(read.none).toEqual([]);
      await expect(readParts(store, { two: 'SELECT number AS value FROM numbers(2)' })).rejects.toThrow(/more than one row/);
      await expect(readParts(store, { 'no name': 'SELECT 1 AS value' })).rejects.toThrow(/not an identifier/);
    });

    test('queryText returns the rows as TabSeparatedRaw: tabs between columns, a newline after each row, JSON text as the engine wrote it', async () => {
      const store = await fresh();
      // A quote, a backslash and a newline: escaped once, by toJSONString, and 64-bit integers unquoted as in query().
      const s = 'q"uo\\te\nline';
      const text = await store.queryText(
        `SELECT part, payload FROM (
           SELECT 'a' AS part, toJSONString(tuple({s:String}, [toInt64(9007199254740993)])) AS payload
           UNION ALL SELECT 'b', toJSONString({s:String})) ORDER BY part`,
        { s },
      );
      expect(text).toBe(`a\t[${JSON.stringify(s)},[9007199254740993]]\nb\t${JSON.stringify(s)}\n`);
      expect(await store.queryText('SELECT 1 WHERE 0')).toBe('');
    });

    test('ReplacingCompaction merges a replacing table into one part once a tenth of it is rewritten, never before, and FINAL reads the same rows', async () => {
      const store = await fresh();
      // The engine's own merges are kept out (no part is small enough for them): only OPTIMIZE merges.
      await store.command(
        `CREATE TABLE valued (wallet String, v Int64, valued_at UInt32) ENGINE = ReplacingMergeTree(valued_at) ORDER BY wallet
         SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1, max_bytes_to_merge_at_min_space_in_pool = 1`,
      );
      // One insert (one part): wallets w0..w(n-1) valued at `at`, each worth at * 1000 + its index.
      const value = async (n: number, at: number) => {
        await store.insert(
          'valued',
          Array.from({ length: n }, (_, i) => ({ wallet: `w${i}`, v: at * 1000 + i, valued_at: at })),
        );
        return n;
      };
      const state = async () => {
        const [row] = await store.query<{ parts: string; rows: string }>(
          `SELECT toString(count()) AS parts, toString(sum(rows)) AS rows FROM system.parts
            WHERE database = currentDatabase() AND table = 'valued' AND active`,
        );
        const final = await store.query<{ wallet: string; v: string }>('SELECT wallet, toString(v) AS v FROM valued FINAL ORDER BY wallet');
        return { parts: Number(row!.parts), rows: Number(row!.rows), final };
      };
      const compaction = new ReplacingCompaction(store, 'valued', 8);
      // Below the minimum: left to the engine.
      expect(await compaction.wrote(await value(7, 1))).toBe(false);
      // The minimum reached, and a tenth of the 7 + 20 rows held: merged into one row per wallet, the rows FINAL read.
      const written = await value(20, 2);
      const unmerged = await state();
      expect(unmerged).toMatchObject({ parts: 2, rows: 27 });
      expect(await compaction.wrote(written)).toBe(true);
      expect(await state()).toEqual({ parts: 1, rows: 20, final: unmerged.final });
      expect(unmerged.final[0]).toEqual({ wallet: 'w0', v: '2000' });
      // Held 20 now: a tenth is 2 rows, but nothing merges before the minimum of 8.
      expect(await compaction.wrote(await value(4, 3))).toBe(false);
      expect(await compaction.wrote(await value(3, 4))).toBe(false);
      const threeParts = await state();
      expect(threeParts).toMatchObject({ parts: 3, rows: 27 });
      expect(await compaction.wrote(await value(1, 5))).toBe(true);
      const after = await state();
      expect(after).toMatchObject({ parts: 1, rows: 20 });
      expect(after.final.slice(0, 4)).toEqual([
        { wallet: 'w0', v: '5000' },
        { wallet: 'w1', v: '4001' },
        { wallet: 'w10', v: '2010' },
        { wallet: 'w11', v: '2011' },
      ]);
      // A larger table waits for a tenth of what it held: 100 written onto 20, merged; then 9 onto 100 is not enough.
      const large = new ReplacingCompaction(store, 'valued', 8);
      expect(await large.wrote(await value(100, 7))).toBe(true);
      expect(await large.wrote(await value(9, 8))).toBe(false);
      expect((await state()).parts).toBe(2);
      expect(await large.wrote(await value(1, 9))).toBe(true);
      expect(await state()).toMatchObject({ parts: 1, rows: 100 });
      // A merge that fails throws nothing (the rows are stored); its error is kept for the caller to report, once.
      const missing = new ReplacingCompaction(store, 'no_such_table', 1);
      expect(await missing.wrote(5)).toBe(false);
      expect(String(missing.takeError())).toMatch(/no_such_table/);
      expect(missing.takeError()).toBeUndefined();
    });

    test('SQL errors reject with the engine message', async () => {
      const store = await fresh();
      await expect(store.query('SELECT * FROM no_such_table')).rejects.toThrow(/no_such_table/);
    });
  });
}

/**
 * Every export dataset beyond trades over the real engine (chDB) and control store (PGlite): each is
 * exported from a store with known rows, downloaded through its signed links, and read back with the
 * engine's Parquet reader; its rows equal the source (the API's served numbers where the API serves
 * them: candles; the source tables otherwise), its file schema equals the schema table, every row
 * carries its market's resolution, filters reduce rows, and a filter a dataset does not take is a 400
 * naming it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ApiHarness, startApiHarness } from '../../test/support/api-harness.js';
import {
  bookDelta,
  bookSnapshot,
  dataApiTwin,
  marketResolved,
  marketUpserted,
  outcomeFill,
  outcomeToken,
  T0,
  tradeExecuted,
  walletAddress,
} from '../../test/support/events.js';
import { getJson, postJson, waitFor } from '../../test/support/http.js';
import { watermarkKeys, watermarks } from '../chain/ledger-events.js';
import { type ProjectionHarness, projectionHarness } from '../../test/support/projection.js';
import { DATASET_SCHEMAS, type DatasetName } from './schemas.js';

const HOUR = 3_600_000;
const DAY = 86_400_000;
const M1 = `0x${'d1'.repeat(32)}`;
const M2 = `0x${'d2'.repeat(32)}`;
const M3 = `0x${'d3'.repeat(32)}`;
const W = [1, 2, 3].map((n) => walletAddress(0x500 + n));
const FROM = new Date(T0 - 2 * DAY).toISOString();
const TO = new Date(T0 + DAY).toISOString();

let h: ProjectionHarness;
let api: ApiHarness;
let key: string;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-export-datasets-'));
const readDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-export-datasets-read-'));

const market = (id: string, over: Parameters<typeof marketUpserted>[0]) =>
  marketUpserted({
    event_id: `${id}:1`,
    market_id: id,
    slug: `m-${id.slice(2, 4)}`,
    title: `Market ${id.slice(2, 4)}`,
    outcome_token_ids: [outcomeToken(id, 0), outcomeToken(id, 1)],
    ...over,
  });

/** Chain fills on M1 and M2 over two UTC days: each wallet buys, then sells part, maker and taker sides. */
const fills = [0, 1, 2, 3, 4, 5].flatMap((n) => {
  const at = T0 - DAY + n * 5 * HOUR;
  const m = n % 2 === 0 ? M1 : M2;
  const side = n < 4 ? 'buy' : 'sell';
  const price = 0.3 + n * 0.05;
  const base = { block: 81_000_000 + n, at, market: m, index: 0, shares: 20 - n, price };
  return [
    outcomeFill({ ...base, tx: 0x300 + n, wallet: W[n % 3]!, side, role: 'taker' }),
    {
      ...outcomeFill({ ...base, tx: 0x300 + n, wallet: W[(n + 1) % 3]!, side: side === 'buy' ? 'sell' : 'buy', role: 'maker' }),
      log_index: 2,
    },
  ].map((e) => ({ ...e, event_id: `137:${e.tx_hash}:${e.log_index}` }));
});

/** Captured books: (market, outcome index, time). */
const BOOKS: Array<[string, number, number]> = [
  [M1, 0, T0 - DAY + HOUR],
  [M1, 1, T0 - DAY + 2 * HOUR],
  [M1, 0, T0 + HOUR],
  [M2, 0, T0 + 3 * HOUR],
];

beforeAll(async () => {
  h = await projectionHarness('export-datasets');
  api = await startApiHarness({ store: h.store, env: { DATA_DIR: dataDir } });
  key = (await api.admin.createKey('researcher', '2')).api_key;
  await h.given({
    markets: [
      market(M1, {
        category: 'Politics',
        event_id_upstream: 'ev-1',
        event_slug: 'election',
        tick_size: 0.01,
        outcome_prices: [0.37, 0.63],
      }),
      market(M2, { category: 'Sports', event_id_upstream: 'ev-2', event_slug: 'cup', liquidity_usdc: 1234.5678905 }),
      market(M3, { category: 'Politics', event_id_upstream: 'ev-1', event_slug: 'election', status: 'resolved' }),
    ],
  });
  // The Data API's record of two taker fills first: the ledger writes them, then cancels them when the
  // chain's own record arrives (a rewind), so the ledger holds rows that no longer stand.
  const takers = fills.filter((e) => e.fill!.role === 'taker');
  await h.given({ trades: takers.slice(0, 2).map(dataApiTwin) });
  // The source then says it has published everything up to a block an hour after the last fill, on every partition.
  const context = { chainId: 137, source: 'simulator' as const, nowMs: T0 + 3 * HOUR, negRiskAdapter: '' };
  const watermark = { number: 81_000_010, hash: `0x${'e'.repeat(64)}`, timeMs: T0 + 2 * HOUR };
  await h.given({ chainLedger: [...fills, ...watermarks(watermark, watermarkKeys(8), context)] });
  await h.given({
    // Data API trades after the chain's coverage: their buckets come from the Data API candles.
    trades: [1, 2, 3].map((n) =>
      tradeExecuted({
        event_id: `late-${n}`,
        market_id: M2,
        asset_id: outcomeToken(M2, 0),
        wallet: W[n % 3],
        price: 0.41 + n / 100,
        yes_price: 0.41 + n / 100,
        size: 3.1234567 * n,
        size_usdc: 1.2345671 * n,
        timestamp_ms: T0 + DAY / 2 + n * HOUR,
      }),
    ),
    bookSnapshots: BOOKS.map(([m, index, at], n) =>
      bookSnapshot({
        event_id: `${outcomeToken(m, index)}:s${n}`,
        market_id: m,
        asset_id: outcomeToken(m, index),
        hash: `s${n}`,
        timestamp_ms: at,
        ingested_at_ms: at,
        bids: [
          { price: 0.37, size: 123.45 + n },
          { price: 0.36, size: 10 },
        ],
        asks: [{ price: 0.39, size: 7.654321 }],
        origin: n % 2 === 0 ? 'clob-rest' : 'clob-ws',
      }),
    ),
    bookDeltas: BOOKS.map(([m, index, at], n) =>
      bookDelta({
        event_id: `d${n}`,
        market_id: m,
        asset_id: outcomeToken(m, index),
        side: n % 2 === 0 ? 'bid' : 'ask',
        price: n % 2 === 0 ? 0.36 : 0.4,
        size: n % 2 === 0 ? 0 : 12.5,
        hash: `d${n}`,
        best_bid: 0.37,
        best_ask: 0.39,
        timestamp_ms: at + 60_000,
        ingested_at_ms: at + 60_000,
      }),
    ),
    marketResolutions: [
      marketResolved({
        event_id: 'r1',
        market_id: M1,
        winning_outcome: 'No',
        winning_outcome_index: 1,
        payouts: [0, 1],
        resolved_at_ms: T0 + HOUR,
      }),
      marketResolved({ event_id: 'r3', market_id: M3, winning_outcome: 'Yes', winning_outcome_index: 0, resolved_at_ms: T0 - DAY - HOUR }),
    ],
  });
}, 180_000);

afterAll(async () => {
  await api?.close();
  await h?.close();
  for (const dir of [dataDir, readDir]) fs.rmSync(dir, { recursive: true, force: true });
});

const v1 = (p: string) => `${api.base}/v1${p}`;
const post = (body: unknown) => postJson(v1('/exports'), body, { apiKey: key });

interface Exported {
  job: any;
  manifest: any;
  /** The downloaded files, as a glob the engine reads. */
  glob: string;
}

let exports = 0;
/** Exports `body`, waits for it, downloads every file through its signed link and checks each against the manifest. */
async function exportOf(body: { dataset: DatasetName; filters?: Record<string, string> }): Promise<Exported> {
  const created = await post(body);
  expect(created.status).toBe(202);
  const job = await waitFor(
    async () => {
      const { body: got } = await getJson(v1(`/exports/${created.body.data.id}`), key);
      return got.data.status === 'succeeded' || got.data.status === 'failed' ? got.data : undefined;
    },
    60_000,
    `export ${created.body.data.id}`,
    50,
  );
  expect(job.status).toBe('succeeded');
  const folder = path.join(readDir, `e${exports++}`);
  const fetchBytes = async (url: string) => Buffer.from(await (await fetch(`${api.base}${url}`)).arrayBuffer());
  const manifest = JSON.parse((await fetchBytes(job.manifest.url)).toString('utf8'));
  for (const file of job.files) {
    const local = path.join(folder, file.name);
    fs.mkdirSync(path.dirname(local), { recursive: true });
    fs.writeFileSync(local, await fetchBytes(file.url));
    const [counted] = await h.rows<{ rows: number }>('SELECT count() AS rows FROM file({f:String}, Parquet)', { f: local });
    expect(Number(counted!.rows)).toBe(file.rows);
  }
  const timed = DATASET_SCHEMAS[body.dataset].time !== null;
  expect(manifest).toMatchObject({ dataset: body.dataset, schema_version: DATASET_SCHEMAS[body.dataset].schemaVersion, format: 'parquet' });
  expect(manifest.schema).toEqual(DATASET_SCHEMAS[body.dataset].columns);
  return { job, manifest, glob: timed ? path.join(folder, 'date=*', 'part-0.parquet') : path.join(folder, 'part-0.parquet') };
}

/** The rows of an export, read back by the engine (decimals as JSON numbers, 64-bit integers as text). */
const readBack = <Row = Record<string, any>>(e: Exported, columns: string, order: string) =>
  h.rows<Row>(`SELECT ${columns} FROM file({glob:String}, Parquet) ORDER BY ${order} SETTINGS output_format_json_quote_decimals = 0`, {
    glob: e.glob,
  });

/** The column names and types of the written files, as the engine reads them back. */
async function fileSchema(e: Exported): Promise<Array<{ name: string; type: string }>> {
  const rows = await h.rows<{ name: string; type: string }>(
    'DESCRIBE file({glob:String}, Parquet) SETTINGS schema_inference_make_columns_nullable = 0, use_hive_partitioning = 0',
    { glob: e.glob },
  );
  return rows.map(({ name, type }) => ({ name, type }));
}

/** A schema type as a Parquet file carries it back (a nullable column is read back without its wrapper). */
const readBackType = (type: string) => type.replace(/^Nullable\((.*)\)$/, '$1');

function expectSchema(e: Exported, dataset: DatasetName) {
  return fileSchema(e).then((schema) =>
    expect(schema).toEqual(DATASET_SCHEMAS[dataset].columns.map((c) => ({ name: c.name, type: readBackType(c.type) }))),
  );
}

const RESOLVED = { [M1]: ['No', 1], [M2]: [null, null], [M3]: ['Yes', 0] } as Record<string, [string | null, number | null]>;

describe('candles', () => {
  const served = async (interval: string, markets: string[]) =>
    (
      await Promise.all(
        markets.map(async (m) => {
          const { body } = await getJson(v1(`/markets/${m}/ohlcv?interval=${interval}&from=${FROM}&to=${TO}&limit=1000`), key);
          return body.data.map((c: any) => ({ market_id: m, ...c, bucket_start: Date.parse(c.bucket_start) }));
        }),
      )
    )
      .flat()
      .sort((a, b) => a.bucket_start - b.bucket_start || a.market_id.localeCompare(b.market_id));
  const columns = `market_id, interval, toUnixTimestamp64Milli(bucket_start) AS bucket_start, open, high, low, close, volume_usdc,
                   volume_shares, toUInt32(trade_count) AS trade_count, origin, market_winning_outcome, market_winning_outcome_index`;

  // No whole UTC day lies inside the chain's coverage, so every daily candle is the Data API's.
  test.each([
    ['1h', ['chain', 'data_api']],
    ['1d', ['data_api']],
  ])('at %s equal GET /markets/{id}/ohlcv, with each market resolution', async (interval, origins) => {
    const e = await exportOf({ dataset: 'candles', filters: { from: FROM, to: TO, interval } });
    await expectSchema(e, 'candles');
    const rows = await readBack(e, columns, 'bucket_start, market_id');
    const expected = await served(interval, [M1, M2, M3]);
    expect(expected.length).toBeGreaterThanOrEqual(3);
    expect(new Set(expected.map((c) => c.origin))).toEqual(new Set(origins));
    expect(rows).toEqual(
      expected.map((c) => ({
        ...c,
        market_winning_outcome: RESOLVED[c.market_id]![0],
        market_winning_outcome_index: RESOLVED[c.market_id]![1],
      })),
    );
    expect(e.job.files.length).toBeGreaterThanOrEqual(2);
  });

  test('an event filter keeps its markets only', async () => {
    const e = await exportOf({ dataset: 'candles', filters: { from: FROM, to: TO, event: 'election' } });
    const rows = await readBack(e, columns, 'bucket_start, market_id');
    expect(rows.map((r) => r.bucket_start)).toEqual((await served('1h', [M1])).map((c) => c.bucket_start));
    expect(new Set(rows.map((r) => r.market_id))).toEqual(new Set([M1]));
  });
});

describe('markets', () => {
  test('one unpartitioned file: each market as GET /markets/{id} serves it, with its resolution', async () => {
    const e = await exportOf({ dataset: 'markets' });
    expect(e.job.files.map((f: { name: string }) => f.name)).toEqual(['part-0.parquet']);
    expect(e.manifest.partitioning).toBe('none (one file)');
    expect(e.job.filters).toMatchObject({ from: null, to: null });
    await expectSchema(e, 'markets');
    const rows = await readBack(
      e,
      `market_id, gamma_id, slug, title, category, status, outcomes, outcome_token_ids, outcome_prices, volume_total_usdc,
       liquidity_usdc, neg_risk, event_id, event_slug, event_title, toUnixTimestamp64Milli(updated_at) AS updated_at, source,
       tick_size, market_winning_outcome, market_winning_outcome_index`,
      'market_id',
    );
    const served = await Promise.all([M1, M2, M3].map(async (m) => (await getJson(v1(`/markets/${m}`), key)).body.data));
    const ticks = await h.rows<{ market_id: string; tick_size: number | null }>(
      'SELECT market_id, tick_size FROM markets FINAL ORDER BY market_id',
    );
    expect(served.map((m) => m.liquidity_usdc)).toEqual([0, 1234.567891, 0]);
    expect(rows).toEqual(
      served.map((m, i) => ({
        market_id: m.id,
        gamma_id: m.gamma_id,
        slug: m.slug,
        title: m.title,
        category: m.category,
        status: m.status,
        outcomes: m.outcomes,
        outcome_token_ids: m.outcome_token_ids,
        outcome_prices: m.outcome_prices,
        volume_total_usdc: m.volume_total_usdc,
        liquidity_usdc: m.liquidity_usdc,
        neg_risk: m.neg_risk,
        event_id: m.event.id,
        event_slug: m.event.slug,
        event_title: m.event.title,
        updated_at: Date.parse(m.updated_at),
        source: m.source,
        tick_size: ticks[i]!.tick_size,
        market_winning_outcome: RESOLVED[m.id]![0],
        market_winning_outcome_index: RESOLVED[m.id]![1],
      })),
    );
  });

  test('category and event filters keep their markets only', async () => {
    const sports = await readBack(await exportOf({ dataset: 'markets', filters: { category: 'sports' } }), 'market_id', 'market_id');
    expect(sports).toEqual([{ market_id: M2 }]);
    const election = await readBack(await exportOf({ dataset: 'markets', filters: { event: 'ev-1' } }), 'market_id', 'market_id');
    expect(election).toEqual([{ market_id: M1 }, { market_id: M3 }]);
  });
});

describe('resolutions', () => {
  const columns = `market_id, winning_outcome, winning_outcome_index, winning_asset_id, payouts,
                   toUnixTimestamp64Milli(resolved_at) AS resolved_at, origin`;

  test('each resolved market once, by the day it resolved, as market_resolutions holds it', async () => {
    const e = await exportOf({ dataset: 'resolutions', filters: { from: FROM, to: TO } });
    await expectSchema(e, 'resolutions');
    expect(e.job.files.map((f: { name: string }) => f.name)).toEqual(
      [T0 - DAY - HOUR, T0 + HOUR].map((t) => `date=${new Date(t).toISOString().slice(0, 10)}/part-0.parquet`),
    );
    const rows = await readBack(e, columns, 'resolved_at');
    const source = await h.rows<Record<string, any>>(`SELECT ${columns} FROM market_resolutions FINAL ORDER BY resolved_at`);
    expect(rows).toEqual(source.map((r) => ({ ...r, resolved_at: Number(r.resolved_at) })));
    expect(rows.map((r) => [r.market_id, r.winning_outcome])).toEqual([
      [M3, 'Yes'],
      [M1, 'No'],
    ]);
  });

  test('from..to keeps the resolutions of its window only', async () => {
    const e = await exportOf({ dataset: 'resolutions', filters: { from: new Date(T0).toISOString(), to: TO } });
    expect((await readBack(e, 'market_id', 'market_id')).map((r) => r.market_id)).toEqual([M1]);
  });
});

describe('position_ledger', () => {
  const columns = `wallet, asset_id, market_id, toUInt32(rev) AS rev, kind, action, origin, toUnixTimestamp64Milli(time) AS time,
                   toString(shares_delta_micro) AS qty_delta, toString(cash_micro) AS cash, toString(realized_pnl_micro) AS realized,
                   toString(shares_after_micro) AS qty_after, toString(cost_basis_after_micro) AS cost_after,
                   shares_after, cost_basis_after_usdc, market_winning_outcome`;
  const order = 'time, wallet, asset_id, rev';

  /** The rows that stand, found here from every stored row: sign 1, and no sign -1 row names its rev. */
  async function standing(wallet?: string) {
    const all = await h.rows<Record<string, any>>(
      `SELECT wallet, asset_id, market_id, toUInt32(rev) AS rev, toInt8(sign) AS sign, toUInt32(of_rev) AS of_rev, toString(kind) AS kind,
              toString(action) AS action, toString(origin) AS origin, toUnixTimestamp64Milli(time) AS time, toString(qty_delta) AS qty_delta,
              toString(cash) AS cash, toString(realized) AS realized, toString(qty_after) AS qty_after, toString(cost_after) AS cost_after
         FROM position_ledger ORDER BY ${order}`,
    );
    const cancelled = new Set(all.filter((r) => r.sign < 0).map((r) => `${r.wallet}|${r.asset_id}|${r.of_rev}`));
    return {
      cancelled: cancelled.size,
      rows: all
        .filter((r) => r.sign > 0 && !cancelled.has(`${r.wallet}|${r.asset_id}|${r.rev}`) && (!wallet || r.wallet === wallet))
        .map(({ sign, of_rev, ...r }) => ({
          ...r,
          time: Number(r.time),
          shares_after: Number(r.qty_after) / 1e6,
          cost_basis_after_usdc: Number(r.cost_after) / 1e6,
          market_winning_outcome: RESOLVED[r.market_id]![0],
        })),
    };
  }

  test('the rows that stand after rewinds, with their exact amounts and market resolution', async () => {
    const e = await exportOf({ dataset: 'position_ledger', filters: { from: FROM, to: TO } });
    await expectSchema(e, 'position_ledger');
    const expected = await standing();
    expect(expected.cancelled).toBeGreaterThan(0);
    expect(expected.rows.length).toBeGreaterThanOrEqual(fills.length);
    expect(await readBack(e, columns, order)).toEqual(expected.rows);
  });

  test('a wallet filter keeps that wallet only', async () => {
    const e = await exportOf({
      dataset: 'position_ledger',
      filters: { from: FROM, to: TO, wallet: W[0]!.toUpperCase().replace('0X', '0x') },
    });
    const expected = await standing(W[0]);
    expect(expected.rows.length).toBeGreaterThan(0);
    expect(await readBack(e, columns, order)).toEqual(expected.rows);
  });
});

describe('order books', () => {
  /** Every event GET /orderbook/history?format=deltas serves for the tokens of BOOKS, oldest first. */
  async function served() {
    const tokens = [...new Set(BOOKS.map(([m, index]) => `${m}|${index}`))].map((t) => t.split('|') as [string, string]);
    const events = await Promise.all(
      tokens.map(async ([m, index]) => {
        const outcome = index === '0' ? 'Yes' : 'No';
        const url = v1(`/orderbook/history?market=${m}&outcome=${outcome}&format=deltas&from=${FROM}&to=${TO}&limit=1000`);
        const { body } = await getJson(url, key);
        return body.data.events.map((e: any) => ({ ...e, market_id: m, asset_id: body.data.asset_id, outcome }));
      }),
    );
    return events
      .flat()
      .sort((a: any, b: any) => Date.parse(a.timestamp) - Date.parse(b.timestamp) || a.asset_id.localeCompare(b.asset_id));
  }

  test('book_snapshots: every captured book, every level, as the replay endpoint serves it, with the resolution', async () => {
    const e = await exportOf({ dataset: 'book_snapshots', filters: { from: FROM, to: TO } });
    await expectSchema(e, 'book_snapshots');
    const rows = await readBack(
      e,
      `book_id, market_id, asset_id, outcome, hash, toUnixTimestamp64Milli(timestamp) AS timestamp, origin,
       arrayMap((p, s) -> (p, s), bid_prices, bid_sizes) AS bids, arrayMap((p, s) -> (p, s), ask_prices, ask_sizes) AS asks,
       market_winning_outcome`,
      'timestamp, asset_id',
    );
    const snapshots = (await served()).filter((x: any) => x.kind === 'snapshot');
    expect(snapshots).toHaveLength(BOOKS.length);
    expect(rows).toEqual(
      snapshots.map((x: any) => ({
        book_id: x.id,
        market_id: x.market_id,
        asset_id: x.asset_id,
        outcome: x.outcome,
        hash: x.hash,
        timestamp: Date.parse(x.timestamp),
        origin: x.origin,
        bids: x.bids.map((l: any) => [l.price, l.size_shares]),
        asks: x.asks.map((l: any) => [l.price, l.size_shares]),
        market_winning_outcome: RESOLVED[x.market_id]![0],
      })),
    );
    expect(e.job.files).toHaveLength(2);
  });

  test('book_deltas: every level change as the replay endpoint serves it, with the resolution', async () => {
    const e = await exportOf({ dataset: 'book_deltas', filters: { from: FROM, to: TO } });
    await expectSchema(e, 'book_deltas');
    const rows = await readBack(
      e,
      `delta_id, market_id, asset_id, outcome, side, price, size_shares, hash, best_bid, best_ask,
       toUnixTimestamp64Milli(timestamp) AS timestamp, market_winning_outcome`,
      'timestamp, asset_id',
    );
    const deltas = (await served()).filter((x: any) => x.kind === 'delta');
    expect(deltas).toHaveLength(BOOKS.length);
    expect(rows).toEqual(
      deltas.map((x: any) => ({
        delta_id: x.id,
        market_id: x.market_id,
        asset_id: x.asset_id,
        outcome: x.outcome,
        side: x.side,
        price: x.price,
        size_shares: x.size_shares,
        hash: x.hash ?? '',
        best_bid: x.best_bid,
        best_ask: x.best_ask,
        timestamp: Date.parse(x.timestamp),
        market_winning_outcome: RESOLVED[x.market_id]![0],
      })),
    );
  });

  test('a market filter keeps its books only', async () => {
    for (const dataset of ['book_snapshots', 'book_deltas'] as const) {
      const e = await exportOf({ dataset, filters: { from: FROM, to: TO, market: M2 } });
      expect(await readBack(e, 'market_id', 'market_id')).toEqual([{ market_id: M2 }]);
    }
  });
});

describe('trades filters', () => {
  test('event and category filters keep their markets only', async () => {
    const all = await readBack(await exportOf({ dataset: 'trades', filters: { from: FROM, to: TO } }), 'market_id', 'market_id');
    const sports = await readBack(
      await exportOf({ dataset: 'trades', filters: { from: FROM, to: TO, category: 'Sports' } }),
      'market_id',
      'market_id',
    );
    expect(sports.length).toBeGreaterThan(0);
    expect(sports).toEqual(all.filter((r) => r.market_id === M2));
    const election = await readBack(
      await exportOf({ dataset: 'trades', filters: { from: FROM, to: TO, event: 'election' } }),
      'market_id',
      'market_id',
    );
    expect(election).toEqual(all.filter((r) => r.market_id === M1));
  });
});

describe('bad input', () => {
  test.each([
    [{ dataset: 'orderbooks', filters: { from: FROM, to: TO } }, 400, 'dataset'],
    [{ dataset: 'candles', filters: { from: FROM, to: TO, wallet: W[0] } }, 400, 'filters.wallet'],
    [{ dataset: 'markets', filters: { from: FROM, to: TO } }, 400, 'filters.from'],
    [{ dataset: 'trades', filters: { from: FROM, to: TO, interval: '1h' } }, 400, 'filters.interval'],
    [{ dataset: 'candles', filters: { from: FROM, to: TO, interval: '2h' } }, 400, 'interval'],
    [{ dataset: 'resolutions', filters: { to: TO } }, 400, 'filters.from'],
    [{ dataset: 'position_ledger' }, 400, 'filters.from'],
    [{ dataset: 'markets', filters: { event: 'no-such-event' } }, 404, 'filters.event'],
    [{ dataset: 'candles', filters: { from: FROM, to: TO, market: 'no-such-market' } }, 404, 'filters.market'],
  ])('%j is a %i naming %s', async (body, status, name) => {
    const refused = await post(body);
    expect(refused.status).toBe(status);
    expect(JSON.stringify(refused.body)).toContain(name);
  });
});

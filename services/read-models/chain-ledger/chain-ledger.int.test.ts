/**
 * Chain ledger: chain events -> the real sink -> chain_ledger rows, chain candles, coverage -> the
 * trades feed (provenance, role filter, chain order) and candles; a reorg's retraction takes orphaned
 * fills out of both, replacement fills come in, and redelivery counts nothing twice; Data API trades
 * are served outside the chain's coverage only and reconciled against it per hour. Numbers are worked
 * out by hand in the comments.
 */
import {
  chainFill,
  chainLedgerEvent,
  chainResolution,
  conditionId,
  marketUpserted,
  T0,
  tradeExecuted,
  txHash,
  walletAddress,
} from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import { blockRetraction, watermarkKeys, watermarks } from '../../chain/ledger-events.js';
import { partitionForKey } from '../../eventlog/partitioner.js';
import { reconcileHours } from './reconciliation.js';

const M = conditionId(0x81);
const [W1, W2, W3] = [walletAddress(0xa1), walletAddress(0xa2), walletAddress(0xa3)];
const EXCHANGE = '0xe111180000d2663c0091e4f400237545b87b996b';
const MINUTE = 60_000;
const hash = (c: string) => `0x${c.repeat(64)}`;

/** One match: the resting order's fill then the taker's, in one transaction. */
function match(
  block: number,
  blockHash: string,
  timeMs: number,
  firstLog: number,
  tx: string,
  taker: 'buy' | 'sell',
  shares: number,
  price: number,
  maker: string,
) {
  const common = { market_id: M, ledger_group: M, block_number: block, block_hash: blockHash, block_time_ms: timeMs, tx_hash: tx };
  const amounts = {
    shares_micro: String(shares * 1e6),
    usdc_micro: String(Math.round(shares * price * 1e6)),
    price,
    yes_price: price,
    asset_id: '111',
  };
  return [
    chainFill({
      ...common,
      log_index: firstLog,
      wallet: maker,
      fill: { ...amounts, role: 'maker', side: taker === 'buy' ? 'sell' : 'buy', counterparty: W1 },
    }),
    chainFill({ ...common, log_index: firstLog + 1, wallet: W1, fill: { ...amounts, role: 'taker', side: taker, counterparty: EXCHANGE } }),
  ];
}

// Block 100 at 12:00:00: W1 buys 10 YES at 0.40 from W2's resting sell.
const block100 = match(100, hash('1'), T0, 0, txHash(0x100), 'buy', 10, 0.4, W2);
// Block 101 at 12:00:01, one second: W1 buys 100 at 0.40 (log 1) then sells 100 at 0.50 (log 3).
const block101 = [
  ...match(101, hash('2'), T0 + 1000, 0, txHash(0x101), 'buy', 100, 0.4, W3),
  ...match(101, hash('2'), T0 + 1000, 2, txHash(0x102), 'sell', 100, 0.5, W2),
];
// Block 102 at 13:01: a split, which moves the chain's coverage past 13:00.
const split = chainLedgerEvent({
  market_id: M,
  ledger_group: M,
  block_number: 102,
  block_hash: hash('3'),
  block_time_ms: T0 + 61 * MINUTE,
  tx_hash: txHash(0x103),
  wallet: W1,
});
// The reorg: block 101 replaced by one holding only the sell (the buy fell out), with new coordinates;
// block 100 replaced by one with the same transaction at the same log indexes (same event ids).
const reorged101 = match(101, hash('4'), T0 + 1000, 0, txHash(0x102), 'sell', 100, 0.5, W2);
const reorged100 = match(100, hash('5'), T0, 0, txHash(0x100), 'buy', 10, 0.4, W2);
const context = { chainId: 137, source: 'simulator' as const, nowMs: T0 + 70 * MINUTE, negRiskAdapter: '' };

let h: ProjectionHarness;

const candle5m = async () =>
  h.rows(
    `SELECT argMinMerge(open) AS open, max(high) AS high, min(low) AS low, argMaxMerge(close) AS close,
            toString(sum(volume_usdc_micro)) AS usdc, toString(sum(volume_shares_micro)) AS shares, toString(sum(trade_count)) AS trades
       FROM chain_candles_5m WHERE market_id = {m:String} AND bucket = toDateTime({b:Int64} / 1000)`,
    { m: M, b: T0 },
  );

beforeAll(async () => {
  h = await projectionHarness('chain_ledger');
  await h.given({
    markets: [marketUpserted({ market_id: M, outcome_token_ids: ['111', '112'] })],
    // The source then says it has published everything up to block 102, on every partition.
    chainLedger: [
      ...block100,
      ...block101,
      split,
      ...watermarks({ number: 102, hash: hash('3'), timeMs: T0 + 61 * MINUTE }, watermarkKeys(8), context),
    ],
    trades: [
      // Inside the chain's coverage: the same fill as block 100's taker fill, and one the chain does not have.
      tradeExecuted({
        event_id: 'api-1',
        market_id: M,
        wallet: W1,
        asset_id: '111',
        size: 10,
        price: 0.4,
        yes_price: 0.4,
        size_usdc: 4,
        tx_hash: txHash(0x100),
        timestamp_ms: T0,
      }),
      tradeExecuted({
        event_id: 'api-2',
        market_id: M,
        wallet: W1,
        asset_id: '111',
        size: 7,
        price: 0.45,
        yes_price: 0.45,
        size_usdc: 3.15,
        tx_hash: txHash(0x999),
        timestamp_ms: T0 + 30_000,
      }),
      // After it: the fast path.
      tradeExecuted({
        event_id: 'api-3',
        market_id: M,
        wallet: W3,
        asset_id: '111',
        size: 2,
        price: 0.55,
        yes_price: 0.55,
        size_usdc: 1.1,
        tx_hash: txHash(0x998),
        timestamp_ms: T0 + 70 * MINUTE,
      }),
    ],
    chainResolutions: [chainResolution({ market_id: M, block_number: 102, block_hash: hash('3'), block_time_ms: T0 + 61 * MINUTE })],
  });
}, 60_000);
afterAll(() => h.close());

test('no coverage until every partition has a watermark', async () => {
  expect(await h.rows('SELECT uniqExact(ledger_group) AS partitions FROM chain_watermarks')).toEqual([{ partitions: 8 }]);
  expect(new Set(watermarkKeys(8).map((key) => partitionForKey(key, 8))).size).toBe(8);
});

test('rows keep exact amounts and the chain coordinates', async () => {
  expect(
    await h.rows(
      `SELECT block_number, log_index, wallet, role, side, toString(shares_micro) AS shares, toString(usdc_micro) AS usdc
         FROM chain_ledger WHERE kind = 'fill' ORDER BY block_number, log_index`,
    ),
  ).toEqual([
    { block_number: 100, log_index: 0, wallet: W2, role: 'maker', side: 'sell', shares: '10000000', usdc: '4000000' },
    { block_number: 100, log_index: 1, wallet: W1, role: 'taker', side: 'buy', shares: '10000000', usdc: '4000000' },
    { block_number: 101, log_index: 0, wallet: W3, role: 'maker', side: 'sell', shares: '100000000', usdc: '40000000' },
    { block_number: 101, log_index: 1, wallet: W1, role: 'taker', side: 'buy', shares: '100000000', usdc: '40000000' },
    { block_number: 101, log_index: 2, wallet: W2, role: 'maker', side: 'buy', shares: '100000000', usdc: '50000000' },
    { block_number: 101, log_index: 3, wallet: W1, role: 'taker', side: 'sell', shares: '100000000', usdc: '50000000' },
  ]);
});

test('the feed: taker records by default in (block, log index) order; makers on request; Data API rows outside the coverage only', async () => {
  const takers = (await h.get(`/trades?market=${M}`)).body.data;
  expect(takers.map((t: any) => [t.origin, t.trade_id, t.block_number, t.log_index, t.side, t.price])).toEqual([
    ['data_api', 'api-3', null, null, 'buy', 0.55],
    ['chain', `137:${txHash(0x102)}:3`, 101, 3, 'sell', 0.5],
    ['chain', `137:${txHash(0x101)}:1`, 101, 1, 'buy', 0.4],
    ['chain', `137:${txHash(0x100)}:1`, 100, 1, 'buy', 0.4],
  ]);
  expect(takers[1]).toEqual({
    trade_id: `137:${txHash(0x102)}:3`,
    market_id: M,
    market_title: 'Market 0001?',
    wallet: W1,
    role: 'taker',
    side: 'sell',
    outcome: 'Yes',
    outcome_index: 0,
    price: 0.5,
    size_shares: 100,
    size_usdc: 50,
    size_shares_micro: '100000000',
    size_usdc_micro: '50000000',
    fee_micro: '0',
    fee_asset: 'usdc',
    timestamp: new Date(T0 + 1000).toISOString(),
    block_number: 101,
    log_index: 3,
    tx_hash: txHash(0x102),
    origin: 'chain',
    source: 'simulator',
  });
  const makers = (await h.get(`/trades?market=${M}&role=maker`)).body.data;
  expect(makers.map((t: any) => [t.wallet, t.block_number, t.log_index, t.side])).toEqual([
    [W2, 101, 2, 'buy'],
    [W3, 101, 0, 'sell'],
    [W2, 100, 0, 'sell'],
  ]);
  const w2 = (await h.get(`/trades?wallet=${W2}&role=all`)).body.data;
  expect(w2.map((t: any) => [t.role, t.side, t.size_shares])).toEqual([
    ['maker', 'buy', 100],
    ['maker', 'sell', 10],
  ]);
  // A named wallet lists both sides by default: a market maker's own list is not empty.
  expect((await h.get(`/trades?wallet=${W2}`)).body.data).toEqual(w2);
  expect((await h.get(`/trades?wallet=${W2}&role=taker`)).body.data).toEqual([]);
});

test('a cursor walk over role=all returns every record once, in order', async () => {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: any = (await h.get(`/trades?market=${M}&role=all&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).body;
    seen.push(...page.data.map((t: any) => t.trade_id));
    cursor = page.pagination.next_cursor;
  } while (cursor);
  expect(seen).toEqual([
    'api-3',
    `137:${txHash(0x102)}:3`,
    `137:${txHash(0x102)}:2`,
    `137:${txHash(0x101)}:1`,
    `137:${txHash(0x101)}:0`,
    `137:${txHash(0x100)}:1`,
    `137:${txHash(0x100)}:0`,
  ]);
  expect((await h.get('/trades?role=both')).status).toBe(400);
});

test('candles: the covered bucket from chain taker fills, first and last by (block, log index); the uncovered one from the Data API', async () => {
  // Taker fills at 12:00: 0.40 (b100), 0.40 (b101 log 1), 0.50 (b101 log 3): O 0.40 H 0.50 L 0.40 C 0.50, 4 + 40 + 50 USDC.
  expect(await candle5m()).toEqual([{ open: 0.4, high: 0.5, low: 0.4, close: 0.5, usdc: '94000000', shares: '210000000', trades: '3' }]);
  const candles = (await h.get(`/markets/${M}/ohlcv?interval=5m&limit=10`)).body.data;
  expect(candles.map((c: any) => [c.bucket_start, c.origin, c.open, c.close, c.volume_usdc, c.trade_count])).toEqual([
    [new Date(T0).toISOString(), 'chain', 0.4, 0.5, 94, 3],
    [new Date(T0 + 70 * MINUTE).toISOString(), 'data_api', 0.55, 0.55, 1.1, 1],
  ]);
  // The market's trade count takes each bucket as the candles do: the chain's inside the coverage (the
  // Data API's twins there are not counted again), the Data API's outside.
  const detail = (await h.get(`/markets/${M}`)).body.data;
  expect(detail.snapshot.trades_total).toBe(candles.reduce((sum: number, c: any) => sum + c.trade_count, 0));
});

test('reconciliation per hour: matched, unmatched (Data API only) and chain-only', async () => {
  expect(await reconcileHours(h.store, T0 + 70 * MINUTE)).toBe(1);
  expect(
    await h.rows('SELECT toUnixTimestamp(hour) * 1000 AS hour, data_api, matched, unmatched, chain_only FROM trade_reconciliation FINAL'),
  ).toEqual([
    // api-1 is block 100's taker fill; api-2 is on no block; b101's two taker fills were never listed by the Data API.
    { hour: T0, data_api: 2, matched: 1, unmatched: 1, chain_only: 2 },
  ]);
});

describe('a reorg replaces block 101', () => {
  beforeAll(async () => {
    const retraction = blockRetraction({ number: 101, hash: hash('2'), timeMs: T0 + 1000 }, M, context);
    const retraction100 = blockRetraction({ number: 100, hash: hash('1'), timeMs: T0 }, M, context);
    await h.given({ chainLedger: [retraction100, retraction, ...reorged100, ...reorged101] });
    // Delivered again (a follower re-publishing after a crash): nothing is counted twice.
    await h.given({ chainLedger: [...reorged101, retraction, ...reorged100] });
    await h.given({
      chainResolutions: [
        chainResolution({
          market_id: M,
          block_number: 102,
          block_hash: hash('3'),
          block_time_ms: T0 + 61 * MINUTE,
          retracted: true,
          ingested_at_ms: T0 + 1,
        }),
      ],
    });
  }, 60_000);

  test('orphaned fills are gone from the table and the feed; the replacements are there once', async () => {
    const all = (await h.get(`/trades?market=${M}&role=all`)).body.data;
    expect(all.map((t: any) => [t.origin, t.block_number, t.log_index, t.wallet, t.side])).toEqual([
      ['data_api', null, null, W3, 'buy'],
      ['chain', 101, 1, W1, 'sell'],
      ['chain', 101, 0, W2, 'buy'],
      ['chain', 100, 1, W1, 'buy'],
      ['chain', 100, 0, W2, 'sell'],
    ]);
    expect(
      await h.rows(`SELECT block_hash, count() AS n FROM chain_ledger WHERE block_number = 101 GROUP BY block_hash ORDER BY block_hash`),
    ).toEqual([
      // The retraction marker stays as the record of what the reorg took back.
      { block_hash: hash('2'), n: 1 },
      { block_hash: hash('4'), n: 2 },
    ]);
  });

  test('the candle is rebuilt without the orphaned fills, in every interval', async () => {
    // Taker fills now: 0.40 (b100) and 0.50 (b101'): O 0.40 H 0.50 L 0.40 C 0.50, 4 + 50 USDC, 2 matches.
    expect(await candle5m()).toEqual([{ open: 0.4, high: 0.5, low: 0.4, close: 0.5, usdc: '54000000', shares: '110000000', trades: '2' }]);
    for (const table of ['chain_candles_1h', 'chain_candles_1d']) {
      expect(
        await h.rows(
          `SELECT argMinMerge(open) AS open, argMaxMerge(close) AS close, toString(sum(volume_usdc_micro)) AS usdc, toString(sum(trade_count)) AS trades
             FROM ${table} WHERE market_id = {m:String}`,
          { m: M },
        ),
      ).toEqual([{ open: 0.4, close: 0.5, usdc: '54000000', trades: '2' }]);
    }
    const [hour] = (await h.get(`/markets/${M}/ohlcv?interval=1h&limit=1&to=${encodeURIComponent(new Date(T0 + 1000).toISOString())}`)).body
      .data;
    expect([hour.origin, hour.volume_usdc, hour.trade_count]).toEqual(['chain', 54, 2]);
  });

  test('a retracted resolution reads as retracted', async () => {
    expect(await h.rows(`SELECT market_id, retracted FROM chain_resolutions FINAL`)).toEqual([{ market_id: M, retracted: true }]);
  });
});

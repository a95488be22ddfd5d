/**
 * The position ledger at scale (part of bench:scale): fills generated in bulk by ClickHouse
 * (INSERT ... SELECT FROM numbers()), their taker fills published to chain_ledger (candles and closes),
 * then
 * - throughput: the same fills through the ledger (state, rows, views) vs a plain insert of their
 *   rows into a table without views, in the same run (ratio = plain seconds / ledger seconds);
 * - freshness: probe fills published on the event log until the sink's ledger puts their wallet on
 *   top of /leaderboard (p50/p99);
 * - the valuation pass summing the 30-day window's closed days (window_summing_ms);
 * - uncached p50/p99 of /traders/{busiest}, its /pnl and /positions, and /leaderboard.
 */
import os from 'node:os';
import { pino } from 'pino';
import { EventPublisher } from '../services/events/publisher.js';
import type { ChainLedgerEvent } from '../services/events/types.generated.js';
import type { AnalyticsStore } from '../services/ports/analytics-store.js';
import type { EventLog } from '../services/ports/event-log.js';
import { ledgerRow } from '../services/read-models/chain-ledger/rows.js';
import { fromChain, fromDataApiTrade, type LedgerEvent } from '../services/read-models/positions/ledger-events.js';
import { PositionLedger } from '../services/read-models/positions/ledger.js';
import { TraderWindow } from '../services/read-models/trader-stats/trader-window.js';
import { TraderValuation } from '../services/read-models/trader-stats/valuation.js';
import { BoardPages, startBoardPages } from '../services/read-models/trader-stats/board-pages.js';
import { loadConfig } from '../services/config.js';
import { startSink, startStatefulProjections } from '../services/sink/sink-service.js';
import { BENCH_MARKETS, NEG_RISK_EVENTS, NEG_RISK_QUESTIONS, benchTokens, negRiskQuestion } from './seed.js';

const BENCH_WALLETS = 100_000;
/** Every 100th fill is the busiest wallet's: 10,000 fills at 1M, 100,000 at 10M. */
export const BUSIEST = `0x${'b'.repeat(40)}`;
const FIRST_BLOCK = 60_000_000;
const CHUNK = 50_000;

/** Appends `count` fills (numbers from..from+count) to bench_fills, spread over the 30 days before `endMs`. */
export async function generateFills(store: AnalyticsStore, from: number, count: number, total: number, endMs: number): Promise<void> {
  await store.command('CREATE TABLE IF NOT EXISTS bench_fills AS chain_ledger ENGINE = MergeTree ORDER BY (block_number, log_index)');
  await store.command(
    `INSERT INTO bench_fills
     SELECT concat('137:0x', lower(hex(intHash64(number))), ':', toString(number % 4)) AS event_id, 'simulator', 'fill', 137,
            ${FIRST_BLOCK} + intDiv(number, 4) AS block_number, concat('0x', lower(hex(${FIRST_BLOCK} + intDiv(number, 4)))) AS block_hash,
            fromUnixTimestamp64Milli(toInt64({end:Int64} - 30 * 86400000 + intDiv(number * 30 * 86400000, {total:UInt64}))) AS block_time,
            concat('0x', lower(hex(intHash64(number)))) AS tx_hash, toInt32(number % 4) AS log_index, '0xe111180000d2663c0091e4f400237545b87b996b',
            concat('0x', leftPad(lower(hex(intHash32(number) % ${BENCH_MARKETS})), 64, '0')) AS ledger_group, ledger_group AS market_id,
            '' AS market_title, false, if(number % 100 = 0, '${BUSIEST}', concat('0x', leftPad(lower(hex(cityHash64(number, 1) % ${BENCH_WALLETS})), 40, '0'))) AS wallet, '',
            if(number % 4 = 0, 'taker', 'maker') AS role, if(cityHash64(number, 7) % 100 < 58, 'buy', 'sell') AS side,
            toString(toUInt256('10000000000000000000000000000000000000000000000000000000000000000000000000000') + (intHash32(number) % ${BENCH_MARKETS}) * 2 + number % 2) AS asset_id,
            if(number % 2 = 0, 'Yes', 'No'), toInt16(number % 2),
            toUInt64(1 + cityHash64(number, 3) % 100) * 1000000 AS shares_micro,
            intDiv(shares_micro * toUInt64(50000 + cityHash64(number, 5) % 900000), 1000000) AS usdc_micro, 0, 'usdc',
            round(usdc_micro / shares_micro, 6) AS price, if(number % 2 = 0, price, 1 - price), 2, '', '', 0, [], [], [], '', now64(3)
       FROM numbers({from:UInt64}, {count:UInt64})`,
    { from, count, total, end: endMs },
  );
}

/**
 * The generated fills numbered from..from+count that the chain source would publish as taker fills, into
 * chain_ledger: its views give the markets their chain candles and the daily closes trader reports value
 * positions and curves with (market_closes). Without them every report would value against no closes.
 */
export async function publishTakerFills(store: AnalyticsStore, from: number, count: number): Promise<void> {
  await store.command(
    `INSERT INTO chain_ledger SELECT * FROM bench_fills
      WHERE role = 'taker' AND block_number >= {lo:UInt64} AND block_number < {hi:UInt64}`,
    { lo: FIRST_BLOCK + from / 4, hi: FIRST_BLOCK + (from + count) / 4 },
  );
}

/** The merges and unfinished mutations the engine is running in the background now. */
export async function backgroundWork(store: AnalyticsStore): Promise<{ merges: number; mutations: number }> {
  const [row] = await store.query<{ merges: number; mutations: number }>(
    'SELECT (SELECT count() FROM system.merges) AS merges, (SELECT count() FROM system.mutations WHERE NOT is_done) AS mutations',
  );
  return { merges: Number(row!.merges), mutations: Number(row!.mutations) };
}

/**
 * Waits until the engine has run no merge or mutation for `quietMs` (sampled every second), at most
 * `limitMs`; returns the ms waited. A bulk load of millions of rows leaves minutes of background merges
 * that compete for the 2 cores with the requests being timed; a service fed continuously merges small
 * parts as it goes. One idle sample can fall between two merges: a 10M run read 0 after 1 s and then had
 * the slowest tails of any run (that run did not record whether merges ran while it was timing).
 */
export async function mergesSettled(store: AnalyticsStore, limitMs = 180_000, quietMs = 5_000): Promise<number> {
  const started = performance.now();
  let quietSince = started;
  for (;;) {
    const { merges, mutations } = await backgroundWork(store);
    const now = performance.now();
    if (merges + mutations > 0) quietSince = now;
    if (now - quietSince >= quietMs || now - started > limitMs) break;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  return Math.round(performance.now() - started);
}

interface FillRow {
  event_id: string;
  block_number: string;
  block_hash: string;
  block_ms: string;
  tx_hash: string;
  log_index: number;
  market_id: string;
  wallet: string;
  role: 'maker' | 'taker';
  side: 'buy' | 'sell';
  asset_id: string;
  outcome: string;
  outcome_index: number;
  shares_micro: string;
  usdc_micro: string;
  price: number;
  yes_price: number;
}

async function* fillChunks(store: AnalyticsStore, from: number, count: number): AsyncGenerator<FillRow[]> {
  for (let at = 0; at < count; at += CHUNK) {
    const lo = FIRST_BLOCK + (from + at) / 4;
    const hi = FIRST_BLOCK + (from + Math.min(count, at + CHUNK)) / 4;
    yield await store.query<FillRow>(
      `SELECT event_id, toString(block_number) AS block_number, block_hash, toUnixTimestamp64Milli(block_time) AS block_ms, tx_hash, log_index,
              market_id, wallet, role, side, asset_id, outcome, outcome_index, toString(shares_micro) AS shares_micro, toString(usdc_micro) AS usdc_micro, price, yes_price
         FROM bench_fills WHERE block_number >= {lo:UInt64} AND block_number < {hi:UInt64} ORDER BY block_number, log_index
        SETTINGS prefer_column_name_to_alias = 1`,
      { lo, hi },
    );
  }
}

function toEvent(r: FillRow): ChainLedgerEvent {
  return {
    event_id: r.event_id,
    source: 'simulator',
    kind: 'fill',
    chain_id: 137,
    block_number: Number(r.block_number),
    block_hash: r.block_hash,
    block_time_ms: Number(r.block_ms),
    tx_hash: r.tx_hash,
    log_index: Number(r.log_index),
    contract: '0xe111180000d2663c0091e4f400237545b87b996b',
    ledger_group: r.market_id,
    market_id: r.market_id,
    market_title: '',
    neg_risk: false,
    wallet: r.wallet,
    via: '',
    fill: {
      role: r.role,
      side: r.side,
      asset_id: r.asset_id,
      outcome: r.outcome,
      outcome_index: Number(r.outcome_index),
      shares_micro: r.shares_micro,
      usdc_micro: r.usdc_micro,
      fee_micro: '0',
      fee_asset: 'usdc',
      price: Number(r.price),
      yes_price: Number(r.yes_price),
      exchange_version: 2,
      order_hash: '',
      counterparty: '',
    },
    position_change: null,
    conversion: null,
    transfer: null,
    coverage: null,
    ingested_at_ms: Date.now(),
  };
}

/**
 * Every TRANSFER_EVERY_BLOCKS-th block's fill at log index 1 is published as an ERC-1155 transfer of
 * its shares from its wallet to another bench wallet instead (10: 2.5 % of the events; 0: none), so
 * the ledger's mix has transfers: two rows each, the receiver's priced from the sender's state.
 */
const TRANSFER_EVERY_BLOCKS = Number(process.env.BENCH_TRANSFER_EVERY_BLOCKS ?? 10);

/**
 * Every CONVERSION_EVERY_BLOCKS-th block's fill at log index 0 is published as a neg-risk conversion
 * (15: 1.7 % of the events; 0: none), and the block before it has its four fills turned into the
 * converting wallet's buys of NO on each question of the conversion's neg-risk event (seed.ts
 * seedNegRiskMarkets), of more shares than it converts: the conversion gives up NO it holds on k = 1..4
 * of them, so its legs are priced from those positions. Its event carries the questions, as the chain
 * source publishes one (services/chain/ledger-events.ts). With a multiple of 5 for both, no block has
 * a transfer and a conversion's part.
 */
const CONVERSION_EVERY_BLOCKS = Number(process.env.BENCH_CONVERSION_EVERY_BLOCKS ?? 15);
/** The NegRiskAdapter on Polygon: the contract a conversion's log comes from. */
const NEG_RISK_ADAPTER = '0xd91e80cf2e7be2e162c6513ced06f1dd0da35296';

/** The conversion of block `block` (which CONVERSION_EVERY_BLOCKS divides into one less than a multiple of it): who, where, which questions, how much. */
function conversionOf(block: number) {
  const n = Math.floor(block / CONVERSION_EVERY_BLOCKS);
  const k = 1 + (n % NEG_RISK_QUESTIONS);
  const first = Math.floor(n / NEG_RISK_QUESTIONS) % NEG_RISK_QUESTIONS;
  const converted = Array.from({ length: k }, (_, j) => (first + j) % NEG_RISK_QUESTIONS);
  return {
    event: n % NEG_RISK_EVENTS,
    // One of the bench's wallets (as generateFills spells them).
    wallet: `0x${(block % BENCH_WALLETS).toString(16).padStart(40, '0')}`,
    indexSet: converted.reduce((set, q) => set | (1n << BigInt(q)), 0n),
    amountMicro: 1_000_000n * BigInt(1 + (n % 50)),
  };
}

/** What the converting wallet's buys of NO add to the generated shares: more than any conversion's amount. */
const NO_BUY_EXTRA_MICRO = 50_000_000n;

/** The fills, transfers and conversions the ledger part applies, from the generated fills (in order). */
function mixedEvent(r: FillRow): ChainLedgerEvent {
  const fill = toEvent(r);
  const block = Number(r.block_number);
  const logIndex = Number(r.log_index);
  if (CONVERSION_EVERY_BLOCKS > 0) {
    const phase = block % CONVERSION_EVERY_BLOCKS;
    if (phase === CONVERSION_EVERY_BLOCKS - 2 && logIndex < NEG_RISK_QUESTIONS) return noBuy(fill, conversionOf(block + 1), logIndex);
    if (phase === CONVERSION_EVERY_BLOCKS - 1 && logIndex === 0) return conversionEvent(fill, conversionOf(block));
  }
  if (TRANSFER_EVERY_BLOCKS <= 0 || block % TRANSFER_EVERY_BLOCKS !== 0 || logIndex !== 1) return fill;
  // The wallet with its last bit flipped: another of the bench's wallets.
  const to = `0x${(BigInt(r.wallet) ^ 1n).toString(16).padStart(40, '0')}`;
  return {
    ...fill,
    kind: 'transfer',
    fill: null,
    transfer: {
      from: r.wallet,
      to,
      asset_id: r.asset_id,
      outcome: r.outcome,
      outcome_index: Number(r.outcome_index),
      shares_micro: r.shares_micro,
    },
  };
}

/** The generated fill as the converting wallet's buy of NO on question `index` of its event, at the fill's price. */
function noBuy(fill: ChainLedgerEvent, conversion: ReturnType<typeof conversionOf>, index: number): ChainLedgerEvent {
  const generated = fill.fill!;
  const question = negRiskQuestion(conversion.event, index);
  const tokens = benchTokens(question.market);
  const shares = BigInt(generated.shares_micro) + NO_BUY_EXTRA_MICRO;
  const priceMicro = BigInt(Math.round(generated.price * 1e6));
  return {
    ...fill,
    // A neg-risk question's fills travel in its neg-risk market's group.
    ledger_group: question.negRiskMarketId,
    market_id: tokens.marketId,
    neg_risk: true,
    wallet: conversion.wallet,
    fill: {
      ...generated,
      side: 'buy',
      asset_id: tokens.no,
      outcome: 'No',
      outcome_index: 1,
      shares_micro: shares.toString(),
      usdc_micro: ((shares * priceMicro) / 1_000_000n).toString(),
      yes_price: Math.round((1 - generated.price) * 1e6) / 1e6,
    },
  };
}

function conversionEvent(fill: ChainLedgerEvent, conversion: ReturnType<typeof conversionOf>): ChainLedgerEvent {
  const { negRiskMarketId } = negRiskQuestion(conversion.event, 0);
  return {
    ...fill,
    kind: 'conversion',
    contract: NEG_RISK_ADAPTER,
    ledger_group: negRiskMarketId,
    market_id: '',
    neg_risk: true,
    wallet: conversion.wallet,
    fill: null,
    conversion: {
      neg_risk_market_id: negRiskMarketId,
      index_set: conversion.indexSet.toString(),
      amount_micro: conversion.amountMicro.toString(),
      question_count: NEG_RISK_QUESTIONS,
      fee_bips: 0,
      questions: Array.from({ length: NEG_RISK_QUESTIONS }, (_, index) => {
        const tokens = benchTokens(negRiskQuestion(conversion.event, index).market);
        return {
          question_index: index,
          market_id: tokens.marketId,
          outcomes: ['Yes', 'No'],
          outcome_token_ids: [tokens.yes, tokens.no],
          yes_index: 0,
        };
      }),
      questions_from: 'chain',
      fee_from: 'chain',
    },
  };
}

/**
 * The conversions the ledger wrote rows of (live), and of those, how many gave up more NO on some
 * question than the wallet held (uncovered): from the stored rows, as the ledger counts no conversions.
 */
async function conversionsApplied(store: AnalyticsStore, fromBlock: number): Promise<{ applied: number; uncovered: number }> {
  const [row] = await store.query<{ applied: string; uncovered: string }>(
    `SELECT toString(count()) AS applied, toString(countIf(short)) AS uncovered FROM (
       SELECT event_id, max(action = 'sell_at_cost' AND -toInt256(qty_delta) < toInt256(in_qty)) AS short
         FROM position_ledger WHERE kind = 'conversion' AND sign > 0 AND block_number >= {from:UInt64}
        GROUP BY event_id)`,
    { from: fromBlock },
  );
  return { applied: Number(row!.applied), uncovered: Number(row!.uncovered) };
}

/**
 * Seconds for a plain insert of the fills' rows (no views) and for the ledger, over the same fills.
 * Each timed phase starts once the engine has no merge left from what came before (the generated fills,
 * the published taker fills, the plain insert's own parts), so neither pays for the other's merges.
 * The ledger's state lookups (keys read back from position_state) are reported with their time: the
 * part of its cost that grows with the store.
 */
export async function ledgerThroughput(store: AnalyticsStore, from: number, count: number) {
  // Configured as the ledger's own table is: no automatic column statistics in its merges (0062).
  await store.command(
    "CREATE TABLE IF NOT EXISTS bench_plain AS bench_fills ENGINE = MergeTree ORDER BY (block_number, log_index) SETTINGS auto_statistics_types = ''",
  );
  const settledBeforePlain = await mergesSettled(store);
  let plain = 0;
  for await (const fills of fillChunks(store, from, count)) {
    const rows = fills.map((r) => ledgerRow(mixedEvent(r)));
    const started = performance.now();
    for (let i = 0; i < rows.length; i += 5_000) await store.insert('bench_plain', rows.slice(i, i + 5_000));
    plain += performance.now() - started;
  }
  const settledBeforeLedger = await mergesSettled(store);
  const ledger = new PositionLedger(store);
  let applied = 0;
  let transfers = 0;
  let conversions = 0;
  for await (const rows of fillChunks(store, from, count)) {
    const events = rows.map((r) => fromChain(mixedEvent(r))).filter((e): e is LedgerEvent => e !== null);
    transfers += events.filter((e) => e.kind === 'transfer').length;
    conversions += events.filter((e) => e.kind === 'conversion').length;
    const started = performance.now();
    // With a token per batch, as the service's consumer applies them (the batch is journalled first,
    // docs/POSITIONS.md); BENCH_LEDGER_TOKENS=0 measures without, for the journal's cost.
    for (let i = 0; i < events.length; i += 5_000)
      await ledger.apply(
        events.slice(i, i + 5_000),
        process.env.BENCH_LEDGER_TOKENS === '0' ? undefined : `bench-${rows[0]?.event_id ?? from}-${i}`,
      );
    applied += performance.now() - started;
  }
  // The copy only served as the baseline: at 10M fills it would double the disk the bench needs.
  await store.command('DROP TABLE bench_plain');
  // The machine's load when the ledger pass ended (1, 5, 15 minutes): other work on the 2 cores slows both passes alike.
  const loadAverage = os.loadavg().map((load) => Math.round(load * 100) / 100);
  const converted = await conversionsApplied(store, FIRST_BLOCK + from / 4);
  // A mix whose conversions the ledger skipped (no questions, no legs) would not measure them.
  if (converted.applied < 0.9 * conversions)
    throw new Error(`${converted.applied} of ${conversions} conversions applied: the mix does not measure them`);
  return {
    plain_seconds: plain / 1000,
    ledger_seconds: applied / 1000,
    ratio: plain / applied,
    transfers,
    transfers_uncovered: ledger.stats.transfers_uncovered,
    load_average: loadAverage,
    conversions,
    conversions_applied: converted.applied,
    conversions_uncovered: converted.uncovered,
    merges_settled_ms: { before_plain: settledBeforePlain, before_ledger: settledBeforeLedger },
    state: {
      never_stored: ledger.keys.stats.skipped_lookups,
      cache_hits: ledger.stats.state_cache_hits,
      lookups: ledger.stats.state_lookups,
      lookup_seconds: ledger.stats.state_lookup_ms / 1000,
    },
  };
}

/** Publishes probe fills through the event log and the sink; ms until each probe wallet tops /leaderboard. */
export async function leaderboardFreshness(
  store: AnalyticsStore,
  log: EventLog,
  base: string,
  key: string,
  probes: number,
): Promise<number[]> {
  const sink = await startSink(log, store, pino({ level: 'silent' }), { groupId: 'bench-ledger-sink' });
  const ledgerConsumer = await startStatefulProjections(log, store, pino({ level: 'silent' }), 'bench-ledger');
  const publisher = new EventPublisher(log);
  // The board is served from its pages, rebuilt as the service rebuilds them (board-pages.ts).
  const config = loadConfig({});
  const pages = startBoardPages(store, config.leaderboardBuildIntervalMs, pino({ level: 'silent' }), config.leaderboardPageDepth);
  const timings: number[] = [];
  try {
    for (let p = 0; p < probes; p++) {
      const wallet = `0x${'e'.repeat(32)}${String(p).padStart(8, '0')}`;
      const block = 90_000_000 + p * 10;
      const market = `0x${'0'.repeat(63)}1`;
      const at = Date.now();
      // Buy 1,000,000 shares at 0.01 and sell them at 0.99: 980,000 USDC realized, above anyone else, rising with p.
      const probe = (i: number, side: 'buy' | 'sell', usdc: string): ChainLedgerEvent => ({
        ...toEvent({
          event_id: `137:probe-${p}-${i}`,
          block_number: String(block + i),
          block_hash: `0x${(block + i).toString(16)}`,
          block_ms: String(at),
          tx_hash: `0xprobe${p}${i}`,
          log_index: 0,
          market_id: market,
          wallet,
          role: 'taker',
          side,
          asset_id: '10000000000000000000000000000000000000000000000000000000000000000000000000002',
          outcome: 'Yes',
          outcome_index: 0,
          shares_micro: String(1_000_000_000_000 + p * 1_000_000),
          usdc_micro: usdc,
          price: 0.5,
          yes_price: 0.5,
        }),
      });
      const started = performance.now();
      await publisher.publish('chainLedger', [probe(0, 'buy', '10000000000'), probe(1, 'sell', String(990_000_000_000 + p * 1_000_000))]);
      for (;;) {
        const response = await fetch(`${base}/v1/leaderboard?limit=1`, { headers: { authorization: `Bearer ${key}` } });
        const body = (await response.json()) as { data: Array<{ wallet: string }> };
        if (body.data[0]?.wallet === wallet) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      timings.push(performance.now() - started);
    }
  } finally {
    await pages.stop();
    await ledgerConsumer.stop();
    await sink.stop();
  }
  return timings;
}

/** Values up to `wallets` wallets (the busiest first) and returns wallets per second. */
export async function valuationRate(store: AnalyticsStore, wallets: number): Promise<number> {
  const rows = await store.query<{ wallet: string }>(
    'SELECT wallet FROM trader_lifetime GROUP BY wallet ORDER BY sum(trades) DESC LIMIT {n:UInt32}',
    { n: wallets },
  );
  return rows.length / ((await valueInChunks(store, rows)) / 1000);
}

/** Values the wallets through the valuation pass, 500 per statement as the service's pass does; ms taken. */
async function valueInChunks(store: AnalyticsStore, rows: Array<{ wallet: string }>): Promise<number> {
  const valuation = new TraderValuation(store);
  const started = performance.now();
  for (let i = 0; i < rows.length; i += 500)
    await valuation.value(
      rows.slice(i, i + 500).map((r) => r.wallet),
      Date.now(),
    );
  return performance.now() - started;
}

/**
 * Values every wallet with ledger rows, 500 per statement, as the service's valuation pass does once it
 * has caught up with a load (every wallet a bulk load touched is pending; valuation.ts); returns the
 * wallets and seconds. Only then does each wallet have a stored curve: a report whose wallet has none
 * values its curve's closed days itself in a second statement (stored-curve.ts): over HTTP, a typical
 * 10M bench wallet's report took 76 ms at p50 that way and 34 ms served from its stored curve.
 * valuationRate values only the 2,000 busiest.
 */
export async function valueEveryWallet(store: AnalyticsStore): Promise<{ wallets: number; seconds: number }> {
  const rows = await store.query<{ wallet: string }>('SELECT DISTINCT wallet FROM trader_lifetime ORDER BY wallet');
  return { wallets: rows.length, seconds: Math.round((await valueInChunks(store, rows)) / 100) / 10 };
}

/**
 * `count` wallets drawn from all wallets with ledger rows but the busiest (timed on its own), in a fixed
 * pseudo-random order (cityHash64 of the wallet): the wallets an endpoint's sampled figure requests,
 * one per round, so its percentiles are over wallets as traffic would spread them. Also the median
 * fill count of the sample.
 */
export async function sampleWallets(store: AnalyticsStore, count: number): Promise<{ wallets: string[]; medianFills: number }> {
  const rows = await store.query<{ wallet: string; fills: string }>(
    `SELECT wallet, toString(sum(trades)) AS fills FROM trader_lifetime WHERE wallet != {busiest:String}
      GROUP BY wallet ORDER BY cityHash64(wallet), wallet LIMIT {n:UInt32}`,
    { busiest: BUSIEST, n: count },
  );
  const fills = rows.map((r) => Number(r.fills)).sort((a, b) => a - b);
  return { wallets: rows.map((r) => r.wallet), medianFills: fills[Math.floor(fills.length / 2)] ?? 0 };
}

/**
 * A history of order book snapshots for every seeded token: `perToken` - 1 earlier copies of its seeded
 * book, evenly spread over the 29 days before it (order_books keeps 30), its best bid and ask 0.01
 * wider (levels as seeded: positions are marked from the best bid and ask only), so the seeded book
 * stays each token's newest. A service keeps a book snapshot per change of every token's
 * book; positions are marked with the newest (book_tops, migration 0058). Returns the rows added.
 */
export async function seedBookHistory(store: AnalyticsStore, perToken: number): Promise<number> {
  if (perToken < 2) return 0;
  const stepMs = Math.floor((29 * 86_400_000) / (perToken - 1));
  await store.command(
    `INSERT INTO order_books
     SELECT concat(book_id, ':', toString(k)) AS book_id, market_id, asset_id, hash, ts - toIntervalMillisecond(k * ${stepMs}) AS ts,
            bid_prices, bid_sizes, ask_prices, ask_sizes, best_bid - 0.01 AS best_bid, best_ask + 0.01 AS best_ask, tick_size,
            min_order_size, last_trade_price, origin, source, ingested_at - toIntervalMillisecond(k * ${stepMs}) AS ingested_at
       FROM (SELECT * FROM order_books FINAL) ARRAY JOIN range(1, ${perToken}) AS k`,
  );
  return BENCH_MARKETS * 2 * (perToken - 1);
}

/** Active parts of `table` now: every per-wallet read opens each of them (docs/POSITIONS.md). */
export async function activeParts(store: AnalyticsStore, table: string): Promise<number> {
  return (await tableSize(store, table)).parts;
}

/** Active parts and rows of `table` now (rows count replaced ones a FINAL read still merges). */
export async function tableSize(store: AnalyticsStore, table: string): Promise<{ parts: number; rows: number }> {
  const [row] = await store.query<{ parts: string; rows: string }>(
    `SELECT toString(count()) AS parts, toString(sum(rows)) AS rows FROM system.parts
      WHERE database = currentDatabase() AND table = {table:String} AND active`,
    { table },
  );
  return { parts: Number(row?.parts ?? 0), rows: Number(row?.rows ?? 0) };
}

/**
 * The valuation pass summing the 30-day window's closed days into today's rows (trader-window.ts), as
 * the service's pass does after a new day or a change dated on one; ms. The /leaderboard?window=30d
 * timings after it are the served path (today's rows with those sums), as between summings in the service.
 */
export async function windowSumming(store: AnalyticsStore): Promise<number> {
  const started = performance.now();
  if (!(await new TraderWindow(store, 0).refresh(Date.now()))) throw new Error('the window was not summed');
  return performance.now() - started;
}

/**
 * Whether /leaderboard?window=30d is served the closed days' sums now (today's rows of
 * trader_recent_days with FINAL); otherwise each request sums the window's rows itself (trader-window.ts).
 */
export async function windowServed(store: AnalyticsStore): Promise<boolean> {
  return new TraderWindow(store).served(Date.now());
}

/** Applies the Data API trades already stored in `trades` (seeded by a bench) to the ledger, in time order. */
export async function ledgerFromStoredTrades(store: AnalyticsStore): Promise<void> {
  const ledger = new PositionLedger(store);
  for (let offset = 0; ; offset += CHUNK) {
    const rows = await store.query<Record<string, string>>(
      `SELECT trade_id, market_id, asset_id, wallet, side, outcome, outcome_index, price, yes_price, size, size_usdc, toUnixTimestamp64Milli(ts) AS ts_ms, tx_hash
         FROM trades ORDER BY ts, trade_id LIMIT {take:UInt32} OFFSET {offset:UInt64}`,
      { take: CHUNK, offset },
    );
    if (rows.length === 0) return;
    const events = rows.map((r) =>
      fromDataApiTrade({
        event_id: r.trade_id!,
        source: 'simulator',
        market_id: r.market_id!,
        market_title: '',
        asset_id: r.asset_id!,
        wallet: r.wallet!,
        side: r.side as 'buy' | 'sell',
        outcome: r.outcome!,
        outcome_index: Number(r.outcome_index),
        price: Number(r.price),
        yes_price: Number(r.yes_price),
        size: Number(r.size),
        size_usdc: Number(r.size_usdc),
        timestamp_ms: Number(r.ts_ms),
        tx_hash: r.tx_hash!,
        ingested_at_ms: Number(r.ts_ms),
      }),
    );
    for (let i = 0; i < events.length; i += 5_000) await ledger.apply(events.slice(i, i + 5_000));
  }
}

/** One build of the board pages (board-pages.ts, to the service's depth) over the whole store, forced: its time and rows. */
export async function boardPagesBuild(store: AnalyticsStore): Promise<{ ms: number; rows: number }> {
  const build = await new BoardPages(store, loadConfig({}).leaderboardPageDepth).build(Date.now(), true);
  return { ms: Math.round(build.ms), rows: build.rows };
}

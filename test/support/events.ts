/**
 * Event builders for tests: every field of the generated type with a plain default, overridable.
 * The types come from schemas/*.avsc, so a field added to a schema shows up here as a compile error
 * until it has a default.
 */
import type {
  ChainConditionResolved,
  ChainFill,
  ChainLedgerEvent,
  BookDelta,
  BookSnapshot,
  GammaEventUpserted,
  HolderSnapshot,
  MarketLifecycleTransition,
  MarketResolved,
  MarketUpserted,
  OpenInterest,
  PositionSnapshot,
  PriceTick,
  SeriesUpserted,
  TagUpserted,
  TradeExecuted,
  WalletActivity,
} from '../../services/events/types.js';
import type { EventOfStream } from '../../services/events/publisher.js';
import type { StreamName } from '../../services/read-models/registry.js';
import { DAY_MS, HOUR_MS, startOfUtcDay } from '../../services/shared/time.js';

/**
 * Noon UTC two days before the day the tests run. Fixtures are dated from the clock because read
 * models keep rows for limited times from now (order books 30 days, their deltas 7, copy picks 2,
 * the 30-day windows): a fixed date falls out of them as the calendar moves on, and tests that passed
 * on it start failing on main with no change (copy picks on 2026-11-24; the backtest's books would
 * have on 2026-12-21). Noon keeps T0 plus or minus a few hours on one UTC day.
 */
export const T0 = startOfUtcDay(Date.now()) - 2 * DAY_MS + 12 * HOUR_MS;
export const conditionId = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
export const walletAddress = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
export const txHash = (n: number) => `0x${n.toString(16).padStart(64, 'f')}`;

export function marketUpserted(over: Partial<MarketUpserted> = {}): MarketUpserted {
  const market_id = over.market_id ?? conditionId(1);
  return {
    event_id: `${market_id}:v1`,
    source: 'simulator',
    market_id,
    gamma_id: '1001',
    slug: `market-${market_id.slice(-4)}`,
    title: `Market ${market_id.slice(-4)}?`,
    category: 'Politics',
    event_id_upstream: '',
    event_slug: '',
    event_title: '',
    outcomes: ['Yes', 'No'],
    outcome_token_ids: [`1${market_id.slice(-6).replace(/\D/g, '7')}1`, `1${market_id.slice(-6).replace(/\D/g, '7')}2`],
    outcome_prices: [0.5, 0.5],
    yes_index: 0,
    status: 'active',
    resolved_outcome: null,
    volume_total_usdc: 0,
    volume_24h_usdc: 0,
    liquidity_usdc: 0,
    best_bid: null,
    best_ask: null,
    last_trade_price: null,
    neg_risk: false,
    start_ms: null,
    end_ms: null,
    closed_ms: null,
    created_ms: null,
    updated_at_ms: T0,
    ingested_at_ms: T0,
    uma_resolution_status: null,
    accepting_orders: null,
    neg_risk_market_id: null,
    question_id: null,
    tick_size: null,
    resolved_at_ms: null,
    fees_enabled: false,
    fee_type: null,
    fee_rate: null,
    fee_exponent: null,
    fee_taker_only: null,
    market_maker_address: null,
    ...over,
  };
}

export function tradeExecuted(over: Partial<TradeExecuted> = {}): TradeExecuted {
  return {
    event_id: 'trade-1',
    source: 'simulator',
    market_id: conditionId(1),
    market_title: 'Market 0001?',
    asset_id: '111',
    wallet: walletAddress(1),
    side: 'buy',
    outcome: 'Yes',
    outcome_index: 0,
    price: 0.5,
    yes_price: 0.5,
    size: 10,
    size_usdc: 5,
    timestamp_ms: T0,
    tx_hash: txHash(1),
    ingested_at_ms: T0,
    ...over,
  };
}

export function marketResolved(over: Partial<MarketResolved> = {}): MarketResolved {
  return {
    event_id: 'resolution-1',
    source: 'simulator',
    market_id: conditionId(1),
    gamma_id: '1001',
    slug: 'market-0001',
    title: 'Market 0001?',
    outcomes: ['Yes', 'No'],
    outcome_token_ids: ['111', '112'],
    winning_outcome: 'Yes',
    winning_outcome_index: 0,
    winning_asset_id: '111',
    payouts: [1, 0],
    resolved_at_ms: T0,
    origin: 'gamma',
    ingested_at_ms: T0,
    ...over,
  };
}

export function marketTransition(over: Partial<MarketLifecycleTransition> = {}): MarketLifecycleTransition {
  const market_id = over.market_id ?? conditionId(1);
  const revision = over.revision ?? 1;
  return {
    event_id: `${market_id}:${revision}`,
    source: 'simulator',
    market_id,
    revision,
    kind: 'listed',
    from_state: null,
    to_state: 'active',
    authority: 'gamma',
    slug: 'market-0001',
    title: 'Market 0001?',
    outcomes: ['Yes', 'No'],
    yes_index: 0,
    resolution_number: 0,
    resolved_outcome: null,
    winning_outcome_index: -1,
    payouts: [],
    final_yes_price: null,
    final_no_price: null,
    occurred_at_ms: null,
    observed_at_ms: T0,
    notify: false,
    ...over,
  };
}

export function gammaEventUpserted(over: Partial<GammaEventUpserted> = {}): GammaEventUpserted {
  return {
    event_id: 'gamma-event-1:v1',
    source: 'simulator',
    gamma_event_id: '77',
    slug: 'event-77',
    title: 'Event 77',
    category: 'Politics',
    active: true,
    closed: false,
    archived: false,
    neg_risk: false,
    neg_risk_market_id: null,
    start_ms: null,
    end_ms: null,
    closed_ms: null,
    volume_usdc: 0,
    volume_24h_usdc: 0,
    liquidity_usdc: 0,
    open_interest_usdc: 0,
    market_ids: [],
    series_ids: [],
    tag_ids: [],
    updated_at_ms: T0,
    ingested_at_ms: T0,
    ...over,
  };
}

export function seriesUpserted(over: Partial<SeriesUpserted> = {}): SeriesUpserted {
  return {
    event_id: 'series-1:v1',
    source: 'simulator',
    series_id: '5',
    slug: 'series-5',
    ticker: 'S5',
    title: 'Series 5',
    series_type: 'single',
    recurrence: 'daily',
    active: true,
    closed: false,
    archived: false,
    volume_usdc: 0,
    volume_24h_usdc: 0,
    liquidity_usdc: 0,
    event_ids: [],
    created_ms: null,
    updated_at_ms: T0,
    ingested_at_ms: T0,
    ...over,
  };
}

export function tagUpserted(over: Partial<TagUpserted> = {}): TagUpserted {
  return {
    event_id: 'tag-1:v1',
    source: 'simulator',
    tag_id: '2',
    label: 'Politics',
    slug: 'politics',
    force_show: false,
    created_ms: null,
    updated_at_ms: T0,
    ingested_at_ms: T0,
    ...over,
  };
}

export function priceTick(over: Partial<PriceTick> = {}): PriceTick {
  return {
    event_id: 'tick-1',
    source: 'simulator',
    market_id: conditionId(1),
    asset_id: '111',
    kind: 'last_trade',
    price: 0.5,
    best_bid: null,
    best_ask: null,
    side: null,
    size: null,
    timestamp_ms: T0,
    origin: 'clob-ws',
    ingested_at_ms: T0,
    ...over,
  };
}

export function bookSnapshot(over: Partial<BookSnapshot> = {}): BookSnapshot {
  const bids = over.bids ?? [];
  const asks = over.asks ?? [];
  return {
    event_id: `${over.asset_id ?? '111'}:${over.hash ?? 'h'}`,
    source: 'simulator',
    market_id: conditionId(1),
    asset_id: '111',
    hash: 'h',
    timestamp_ms: T0,
    bids,
    asks,
    best_bid: bids.length ? Math.max(...bids.map((l) => l.price)) : null,
    best_ask: asks.length ? Math.min(...asks.map((l) => l.price)) : null,
    tick_size: 0.01,
    min_order_size: 5,
    last_trade_price: null,
    origin: 'clob-rest',
    ingested_at_ms: T0,
    ...over,
  };
}

export function bookDelta(over: Partial<BookDelta> = {}): BookDelta {
  return {
    event_id: 'delta-1',
    source: 'simulator',
    market_id: conditionId(1),
    asset_id: '111',
    side: 'bid',
    price: 0.45,
    size: 10,
    hash: 'h2',
    best_bid: 0.45,
    best_ask: null,
    timestamp_ms: T0,
    ingested_at_ms: T0,
    ...over,
  };
}

export function walletActivity(over: Partial<WalletActivity> = {}): WalletActivity {
  return {
    event_id: 'activity-1',
    source: 'simulator',
    wallet: walletAddress(1),
    market_id: conditionId(1),
    type: 'TRADE',
    asset_id: '111',
    side: 'BUY',
    outcome: 'Yes',
    outcome_index: 0,
    size: 10,
    usdc_size: 5,
    price: 0.5,
    tx_hash: txHash(1),
    timestamp_ms: T0,
    ingested_at_ms: T0,
    ...over,
  };
}

export function positionSnapshot(over: Partial<PositionSnapshot> = {}): PositionSnapshot {
  return {
    event_id: 'position-1',
    source: 'simulator',
    wallet: walletAddress(1),
    market_id: conditionId(1),
    asset_id: '111',
    outcome: 'Yes',
    outcome_index: 0,
    size: 10,
    avg_price: 0.4,
    initial_value_usdc: 4,
    current_value_usdc: 5,
    cash_pnl_usdc: 1,
    realized_pnl_usdc: 0,
    total_bought: 10,
    cur_price: 0.5,
    redeemable: false,
    mergeable: false,
    neg_risk: false,
    snapshot_at_ms: T0,
    ingested_at_ms: T0,
    ...over,
  };
}

export function holderSnapshot(over: Partial<HolderSnapshot> = {}): HolderSnapshot {
  return {
    event_id: 'holder-1',
    source: 'simulator',
    market_id: conditionId(1),
    asset_id: '111',
    wallet: walletAddress(1),
    outcome_index: 0,
    amount: 10,
    rank: 1,
    snapshot_at_ms: T0,
    ingested_at_ms: T0,
    ...over,
  };
}

export function openInterest(over: Partial<OpenInterest> = {}): OpenInterest {
  return {
    event_id: 'oi-1',
    source: 'simulator',
    market_id: conditionId(1),
    open_interest_usdc: 100,
    snapshot_at_ms: T0,
    ingested_at_ms: T0,
    ...over,
  };
}

/** A chain fill (default: the taker fill of a 10-share buy of YES at 0.5); `fill` fields override the fill's. */
export function chainFill(over: Partial<Omit<ChainLedgerEvent, 'fill'>> & { fill?: Partial<ChainFill> } = {}): ChainLedgerEvent {
  const { fill, ...rest } = over;
  const market_id = rest.market_id ?? conditionId(1);
  const tx_hash = rest.tx_hash ?? txHash(1);
  const log_index = rest.log_index ?? 0;
  return {
    event_id: `137:${tx_hash}:${log_index}`,
    source: 'simulator',
    kind: 'fill',
    chain_id: 137,
    block_number: 80_000_000,
    block_hash: `0x${'b'.repeat(64)}`,
    block_time_ms: T0,
    tx_hash,
    log_index,
    contract: '0xe111180000d2663c0091e4f400237545b87b996b',
    ledger_group: market_id,
    market_id,
    market_title: 'Market 0001?',
    neg_risk: false,
    wallet: walletAddress(1),
    via: '',
    position_change: null,
    conversion: null,
    transfer: null,
    coverage: null,
    ingested_at_ms: T0,
    ...rest,
    fill: {
      role: 'taker',
      side: 'buy',
      asset_id: '111',
      outcome: 'Yes',
      outcome_index: 0,
      shares_micro: '10000000',
      usdc_micro: '5000000',
      fee_micro: '0',
      fee_asset: 'usdc',
      price: 0.5,
      yes_price: 0.5,
      exchange_version: 2,
      order_hash: `0x${'0'.repeat(64)}`,
      counterparty: '0xe111180000d2663c0091e4f400237545b87b996b',
      ...fill,
    },
  };
}

/** The outcome token `index` of a test market: the market id's first hex digits and the index. */
export const outcomeToken = (market: string, index: number) => `${market.slice(2, 8)}${index}`;

/** A one-level book snapshot of outcome `index` of `market` (size 100 a side), taken at `at`. */
export const outcomeBook = (market: string, index: number, bid: number, ask: number, at: number, ingestedAt = at) =>
  bookSnapshot({
    event_id: `${outcomeToken(market, index)}:${at}`,
    market_id: market,
    asset_id: outcomeToken(market, index),
    hash: `h${at}`,
    timestamp_ms: at,
    ingested_at_ms: ingestedAt,
    bids: [{ price: bid, size: 100 }],
    asks: [{ price: ask, size: 100 }],
  });

/** A two-outcome market whose tokens are outcomeToken(id, 0) and (id, 1), priced 0.5 each, recorded at `atMs`. */
export function binaryMarket(id: string, atMs: number): MarketUpserted {
  return marketUpserted({
    event_id: `${id}:1`,
    market_id: id,
    title: `Market ${id.slice(2, 4)}`,
    outcome_token_ids: [outcomeToken(id, 0), outcomeToken(id, 1)],
    outcome_prices: [0.5, 0.5],
    updated_at_ms: atMs,
    ingested_at_ms: atMs,
  });
}

/**
 * A chain fill of `shares` at `price` (USDC per share) on outcome `index` (0 YES, 1 NO) of a binary
 * `market`, in transaction `tx` of block `block` at `at`: USDC rounded down to the micro-unit, the YES
 * price the complement of a NO fill's.
 */
export function outcomeFill(o: {
  tx: number;
  block: number;
  at: number;
  wallet: string;
  market: string;
  index: number;
  side: 'buy' | 'sell';
  shares: number;
  price: number;
  role?: 'taker' | 'maker';
}): ChainLedgerEvent {
  const sharesMicro = BigInt(Math.round(o.shares * 1e6));
  return chainFill({
    tx_hash: txHash(o.tx),
    log_index: 1,
    block_number: o.block,
    block_hash: `0x${o.block.toString(16).padStart(64, '0')}`,
    block_time_ms: o.at,
    market_id: o.market,
    ledger_group: o.market,
    wallet: o.wallet,
    fill: {
      role: o.role ?? 'taker',
      side: o.side,
      asset_id: outcomeToken(o.market, o.index),
      outcome: o.index === 0 ? 'Yes' : 'No',
      outcome_index: o.index,
      shares_micro: sharesMicro.toString(),
      usdc_micro: ((sharesMicro * BigInt(Math.round(o.price * 1e6))) / 1_000_000n).toString(),
      price: o.price,
      yes_price: o.index === 0 ? o.price : Math.round((1 - o.price) * 1e6) / 1e6,
    },
  });
}

/**
 * A fill of `market`'s first outcome token (YES) at `block`, for ledger tests: the block orders it in
 * the chain whatever order fills are published in, and shares and USDC are exact micro-units.
 */
export function yesFill(over: {
  market: string;
  wallet: string;
  block: number;
  time: number;
  shares: number;
  price: number;
  side?: 'buy' | 'sell';
  role?: 'taker' | 'maker';
}): ChainLedgerEvent {
  const { market, wallet, block, time, shares, price, side = 'buy', role = 'taker' } = over;
  return chainFill({
    tx_hash: txHash(block),
    block_number: block,
    block_hash: `0x${block.toString(16).padStart(64, '0')}`,
    block_time_ms: time,
    log_index: 1,
    market_id: market,
    ledger_group: market,
    wallet,
    fill: {
      role,
      side,
      asset_id: `${market.slice(2, 8)}0`,
      outcome: 'Yes',
      outcome_index: 0,
      shares_micro: String(shares * 1e6),
      usdc_micro: String(Math.round(shares * price * 1e6)),
      price,
      yes_price: price,
    },
  });
}

/** A ledger event other than a fill (split by default). */
export function chainLedgerEvent(over: Partial<ChainLedgerEvent> = {}): ChainLedgerEvent {
  const market_id = over.market_id ?? conditionId(1);
  const tx_hash = over.tx_hash ?? txHash(2);
  const log_index = over.log_index ?? 0;
  return {
    event_id: `137:${tx_hash}:${log_index}`,
    source: 'simulator',
    kind: 'split',
    chain_id: 137,
    block_number: 80_000_000,
    block_hash: `0x${'b'.repeat(64)}`,
    block_time_ms: T0,
    tx_hash,
    log_index,
    contract: '0x4d97dcd97ec945f40cf65f87097ace5ea0476045',
    ledger_group: market_id,
    market_id,
    market_title: 'Market 0001?',
    neg_risk: false,
    wallet: walletAddress(1),
    via: '',
    fill: null,
    position_change: {
      amount_micro: '25000000',
      index_sets: ['1', '2'],
      redeemed_micro: [],
      outcome_token_ids: ['111', '112'],
      collateral_token: '0x2791bca1f2de4661ed88a30c99a7a9449aa84174',
    },
    conversion: null,
    transfer: null,
    coverage: null,
    ingested_at_ms: T0,
    ...over,
  };
}

/** The chain source's retraction of a block's changes in one ledger group (a reorg orphaned the block). */
export function blockRetraction(
  block: Pick<ChainLedgerEvent, 'block_hash' | 'block_number' | 'block_time_ms' | 'ledger_group'>,
): ChainLedgerEvent {
  return chainLedgerEvent({
    event_id: `137:${block.block_hash}:${block.ledger_group}:retracted`,
    kind: 'block_retracted',
    block_number: block.block_number,
    block_hash: block.block_hash,
    block_time_ms: block.block_time_ms,
    tx_hash: '',
    log_index: -1,
    contract: '',
    ledger_group: block.ledger_group,
    market_id: '',
    wallet: '',
    position_change: null,
  });
}

export function chainResolution(over: Partial<ChainConditionResolved> = {}): ChainConditionResolved {
  return {
    event_id: `137:${txHash(3)}:0`,
    source: 'simulator',
    chain_id: 137,
    block_number: 80_000_000,
    block_hash: `0x${'b'.repeat(64)}`,
    block_time_ms: T0,
    tx_hash: txHash(3),
    log_index: 0,
    market_id: conditionId(1),
    question_id: conditionId(2),
    oracle: '0x157ce2d672854c848c9b79c49a8cc6cc89176a49',
    neg_risk_market_id: null,
    outcome_slot_count: 2,
    payout_numerators: ['1', '0'],
    payouts: [1, 0],
    winning_outcome_index: 0,
    retracted: false,
    ingested_at_ms: T0,
    ...over,
  };
}

/** One valid example per stream (the schema-conformance test checks each); a new stream without one is a compile error here. */
export const EXAMPLES: { [N in StreamName]: () => EventOfStream<N> } = {
  markets: () => marketUpserted({ status: 'resolved', resolved_outcome: 'Yes', start_ms: T0, accepting_orders: false, tick_size: 0.01 }),
  trades: tradeExecuted,
  marketResolutions: marketResolved,
  marketLifecycle: marketTransition,
  gammaEvents: () => gammaEventUpserted({ market_ids: [conditionId(1)], neg_risk_market_id: conditionId(9) }),
  series: seriesUpserted,
  tags: tagUpserted,
  priceTicks: () => priceTick({ best_bid: 0.49, side: 'BUY', size: 3 }),
  bookSnapshots: () => bookSnapshot({ bids: [{ price: 0.4, size: 1 }], asks: [{ price: 0.6, size: 2 }] }),
  bookDeltas: bookDelta,
  walletActivity: walletActivity,
  positions: positionSnapshot,
  holders: holderSnapshot,
  openInterest: openInterest,
  chainLedger: chainFill,
  chainResolutions: chainResolution,
  signals: () => ({
    event_id: 'evt_0123456789abcdef0123456789abcdef',
    event: 'market.price_signal',
    source: 'simulator',
    market_id: conditionId(1),
    wallet: null,
    at_ms: T0,
    payload: '{"event":"market.price_signal"}',
  }),
  deadLetters: () => ({ stage: 'ingest', source: 'simulator', origin: 'gamma/markets', reason: 'test', raw: '{}', at_ms: T0 }),
};

/** The Data API's record of a chain taker fill: same transaction, wallet and token (its twin, which the chain's record replaces). */
export function dataApiTwin(event: ChainLedgerEvent): TradeExecuted {
  const f = event.fill!;
  return tradeExecuted({
    event_id: `api-${event.event_id}`,
    market_id: event.market_id,
    asset_id: f.asset_id,
    wallet: event.wallet,
    side: f.side,
    outcome: f.outcome,
    outcome_index: f.outcome_index,
    price: f.price,
    yes_price: f.yes_price,
    size: Number(f.shares_micro) / 1e6,
    size_usdc: Number(f.usdc_micro) / 1e6,
    timestamp_ms: event.block_time_ms,
    tx_hash: event.tx_hash,
  });
}

/**
 * Sixteen chain taker fills of four wallets on one market, two per (wallet, token): each wallet buys,
 * then sells part, in both tokens, a minute apart (the ledger tests of Data API twins and restarts).
 */
export function fourWalletFills(o: {
  market: string;
  wallets: readonly string[];
  firstTx: number;
  firstBlock: number;
  at: number;
}): ChainLedgerEvent[] {
  return Array.from({ length: 16 }, (_, i) =>
    outcomeFill({
      tx: o.firstTx + i,
      block: o.firstBlock + i,
      at: o.at + i * 60_000,
      wallet: o.wallets[i % o.wallets.length]!,
      market: o.market,
      index: Math.floor(i / 4) % 2,
      side: i < 8 ? 'buy' : 'sell',
      shares: 10 + i,
      price: 0.2 + i / 100,
    }),
  );
}

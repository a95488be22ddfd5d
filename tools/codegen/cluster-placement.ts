/**
 * Where each ClickHouse table of the service lives in a multi-node deployment (clickhouse/README.md):
 * - `sharded`: `<table>_local` (Replicated*MergeTree, one copy per replica of each shard) and `<table>`
 *   (Distributed over the cluster, inserts routed by `key`). Wallet-keyed tables shard by the wallet,
 *   market-keyed ones by the market, so a wallet's (or market's) rows and the views fed from them sit on
 *   one shard. Views keep writing to the `_local` table of the shard the insert landed on.
 * - `replicated`: one Replicated*MergeTree table with the same name on every server (a path without
 *   `{shard}`): catalog and job-output tables that are small and read whole or joined everywhere.
 * - `broadcast`: the EmbeddedRocksDB key-value copies, which no Replicated engine exists for: a
 *   `<table>_local` on every server, written through `<table>` (Distributed over the broadcast cluster,
 *   one shard holding every server, internal_replication false) so every insert reaches every server.
 * The generator refuses a table not listed here, so a new migration makes this decision explicitly.
 */
export type Placement = { kind: 'sharded'; key: string } | { kind: 'replicated' } | { kind: 'broadcast' };

const byWallet: Placement = { kind: 'sharded', key: 'cityHash64(wallet)' };
const byMarket: Placement = { kind: 'sharded', key: 'cityHash64(market_id)' };
const replicated: Placement = { kind: 'replicated' };
const broadcast: Placement = { kind: 'broadcast' };

export const PLACEMENT: Readonly<Record<string, Placement>> = {
  // The migrator's own record: every server must see the same applied versions.
  schema_migrations: replicated,
  // Catalog: small, read whole and joined by market everywhere.
  markets: replicated,
  market_resolutions: replicated,
  gamma_events: replicated,
  gamma_series: replicated,
  gamma_tags: replicated,
  market_lifecycle: replicated,
  chain_resolutions: replicated,
  // Pipeline bookkeeping and job outputs: a handful of rows per source, hour, window or board.
  chain_watermarks: replicated,
  chain_contiguous: replicated,
  ledger_watermarks: replicated,
  trade_reconciliation: replicated,
  copy_picks: replicated,
  // Redemptions waiting for their market's payout: few, and found by market for every wallet.
  position_redemptions_unpriced: replicated,
  copy_picks_runs: replicated,
  leaderboard_pages: replicated,
  leaderboard_pages_next: replicated,
  leaderboard_figures_next: replicated,
  // Market-keyed event tables and the views they feed.
  trades: byMarket,
  candles_5m: byMarket,
  candles_1h: byMarket,
  candles_1d: byMarket,
  price_ticks: byMarket,
  order_books: byMarket,
  order_book_deltas: byMarket,
  book_tops: byMarket,
  market_holders: byMarket,
  open_interest: byMarket,
  chain_ledger: byMarket,
  chain_candles_5m: byMarket,
  chain_candles_1h: byMarket,
  chain_candles_1d: byMarket,
  market_closes: byMarket,
  market_touches: byMarket,
  // Views over a sharded ledger keyed by something else than its shard key: each shard holds partial
  // states per key, which reads merge (-Merge / max over GROUP BY) across shards.
  chain_coverage: { kind: 'sharded', key: 'cityHash64(source)' },
  ledger_progress: { kind: 'sharded', key: 'cityHash64(origin)' },
  trader_window_counts: { kind: 'sharded', key: 'cityHash64(day)' },
  // Wallet-keyed tables: the position ledger and every figure derived from it.
  wallet_activity: byWallet,
  wallet_positions: byWallet,
  position_ledger: byWallet,
  position_current: byWallet,
  position_state: byWallet,
  position_daily: byWallet,
  position_reconciliation: byWallet,
  trader_market_pnl: byWallet,
  trader_daily: byWallet,
  trader_totals: byWallet,
  trader_days: byWallet,
  trader_lifetime: byWallet,
  wallet_coverage: byWallet,
  trader_recent_days: byWallet,
  trader_window: byWallet,
  trader_touches: byWallet,
  trader_curve: byWallet,
  trader_valuation: byWallet,
  trader_valuation_next: byWallet,
  trader_category_valuation: byWallet,
  trader_stats: byWallet,
  trader_category_stats: byWallet,
  // Key-value copies (EmbeddedRocksDB), per server.
  position_head: broadcast,
  ledger_journal: broadcast,
  market_marks: broadcast,
  market_marks_progress: broadcast,
  trader_valuation_progress: broadcast,
  wallet_snapshots: broadcast,
  wallet_snapshots_progress: broadcast,
};

/**
 * Statements the service runs outside its migrations that address a table's storage, which on the
 * cluster is the `_local` table of each shard or a table of each server: none has a cluster variant
 * yet, so the parts cannot run on the cluster with the jobs that send them (clickhouse/README.md).
 * test/clickhouse/cluster-config.unit.test.ts finds every such statement in services/ and fails on one
 * not listed here.
 */
export const RUNTIME_STATEMENTS_WITHOUT_VARIANT: Readonly<Record<string, string>> = {
  'services/read-models/chain-ledger/retraction.ts: ALTER TABLE ${table} DELETE':
    'a mutation cannot go through a Distributed table: it needs ALTER TABLE chain_candles_*_local ON CLUSTER',
  'services/read-models/chain-ledger/retraction.ts: ALTER TABLE chain_ledger DELETE': 'as above, chain_ledger_local ON CLUSTER',
  'services/read-models/chain-ledger/retraction.ts: ALTER TABLE market_closes DELETE': 'as above, market_closes_local ON CLUSTER',
  'services/read-models/chain-ledger/retraction.ts: ALTER TABLE trader_curve DELETE': 'as above, trader_curve_local ON CLUSTER',
  'services/read-models/candles/rebuild.ts: ALTER TABLE ${table} DELETE': 'as above, candles_*_local ON CLUSTER',
  'services/read-models/trader-stats/board-pages.ts: EXCHANGE TABLES leaderboard_pages AND leaderboard_pages_next':
    'EXCHANGE acts on the one server it is sent to; the other servers would keep the old pages: it needs ON CLUSTER',
  'services/read-models/trader-stats/board-pages.ts: TRUNCATE TABLE leaderboard_figures_next':
    'runs as is (a Replicated table truncates on every replica); listed so the board job is reviewed as one',
  'services/read-models/trader-stats/board-pages.ts: TRUNCATE TABLE leaderboard_pages_next': 'as above',
  'services/read-models/trader-stats/trader-window.ts: OPTIMIZE TABLE trader_recent_days':
    'OPTIMIZE cannot go through a Distributed table: it needs trader_recent_days_local ON CLUSTER',
  'services/analytics/replacing-compaction.ts: OPTIMIZE TABLE ${this.table}':
    'as above, trader_valuation_local and trader_category_valuation_local ON CLUSTER',
};

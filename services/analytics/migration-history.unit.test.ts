/**
 * Migrations are one sequence across the read models' folders, recorded by version and name in
 * schema_migrations (migrate.ts): an existing store runs every version it has not recorded. So a
 * migration once released keeps its version and name wherever its file lives (moving it to another
 * read model's folder changes nothing a store sees), none is removed, and a new one comes after the
 * last: the released list is a prefix of what readMigrations() finds. A new migration needs no edit
 * here; add it to the list when it is released, so it is pinned as well.
 */
import { readMigrations } from './migrate.js';

const RELEASED = [
  '0001_markets',
  '0002_trades',
  '0003_candles_5m',
  '0004_candles_1h',
  '0005_candles_1d',
  '0007_trades_projections',
  '0010_markets_resolution_fields',
  '0011_market_resolutions',
  '0012_gamma_events',
  '0013_gamma_series',
  '0014_gamma_tags',
  '0015_price_ticks',
  '0016_order_books',
  '0017_wallet_activity',
  '0018_positions',
  '0019_market_holders',
  '0020_open_interest',
  '0021_open_interest_column_name',
  '0022_market_lifecycle',
  '0030_markets_fee_fields',
  '0031_chain_ledger',
  '0032_chain_candles',
  '0033_chain_resolutions',
  '0034_trade_reconciliation',
  '0035_chain_watermarks',
  '0036_copy_picks',
  '0041_position_ledger',
  '0042_trader_aggregates',
  '0043_position_state',
  '0044_trader_days_lifetime',
  '0051_trader_lifetime_trade_times',
  '0052_position_state_report_sums',
  '0053_trader_curve',
  '0054_trader_window',
  '0055_market_closes',
  '0056_trader_window_in_days',
  '0057_trader_window_counts',
  '0058_book_tops',
  '0059_trader_rows_small_blocks',
  '0060_position_head',
  '0061_trader_valuation_small_granules',
  '0062_ledger_no_auto_statistics',
  '0063_leaderboard_pages',
  '0064_leaderboard_page_depth',
  '0065_market_marks',
  '0066_wallet_snapshots',
  '0067_trader_days_fees_cash',
  '0068_position_ledger_counterparty',
  '0070_position_reconciliation',
  '0071_leaderboard_fees',
  '0072_copy_picks_runs',
  '0073_chain_contiguous',
  '0074_position_ledger_question_index',
  '0075_reconciliation_reasons',
  '0076_wallet_coverage',
  '0077_markets_market_maker',
  '0078_chain_amm_trades',
  '0079_ledger_journal',
  '0080_redemptions_unpriced',
  '0081_trader_valuation_progress',
];

test('every released migration keeps its version and name, in order, and new ones follow the last', () => {
  const found = readMigrations().map((migration) => [migration.version, migration.name]);
  expect(found.slice(0, RELEASED.length)).toEqual(RELEASED.map((name) => [Number(name.slice(0, 4)), name]));
});

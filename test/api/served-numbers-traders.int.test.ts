/**
 * The Conventions of api/openapi.yaml over the trader and position responses: the ledger's stack on the
 * embedded engines (file log -> sink and the position ledger -> chDB, marks and wallet snapshots
 * refreshed, the HTTP API with response validation on). Figures whose exact value has more than 6
 * decimals (an average entry of 1.7 / 3) and a Data API position whose average price carries more
 * (0.5234567891, as the Data API serves them) are read from every trader endpoint: each served number
 * is rounded to 6 decimals by the one rule, with no float noise. Figures by hand in the comments.
 */
import { watermarkKeys, watermarks } from '../../services/chain/ledger-events.js';
import { chainLedger } from '../../services/read-models/chain-ledger/streams.js';
import { reconcilePositions } from '../../services/read-models/positions/upstream-reconciliation.js';
import { binaryMarket, outcomeFill, outcomeToken, positionSnapshot } from '../support/events.js';
import { type ProjectionHarness, projectionHarness } from '../support/projection.js';
import { breaches } from '../support/served-numbers.js';

const HOUR = 3_600_000;
/** Within every window the trader endpoints read (today and the last 30 days). */
const T = Date.now() - 3 * HOUR;
const SNAPSHOT = T + HOUR;
const COVERAGE = { from_block: 79_999_000, from_time_ms: T - HOUR, history_start_block: 4_023_686 };
const WATERMARK = { number: 80_000_500, hash: `0x${'5'.repeat(64)}`, timeMs: SNAPSHOT - 600_000 };
const MARKET = `0x${'7'.repeat(64)}`;
const WALLET = `0x${'7a'.repeat(20)}`;

let h: ProjectionHarness;

beforeAll(async () => {
  h = await projectionHarness('served-numbers-traders');
  const fill = (tx: number, side: 'buy' | 'sell', shares: number, price: number) =>
    outcomeFill({ tx, block: 80_000_000 + tx, at: T + tx * 1000, wallet: WALLET, market: MARKET, index: 0, side, shares, price });
  const context = { chainId: 137, source: 'simulator' as const, nowMs: WATERMARK.timeMs, negRiskAdapter: `0x${'e'.repeat(40)}` };
  await h.given({
    markets: [binaryMarket(MARKET, T)],
    chainLedger: [
      fill(1, 'buy', 1, 0.5), // cost 0.5
      fill(2, 'buy', 2, 0.6), // cost 1.7 for 3 shares: 0.5666666... a share
      fill(3, 'sell', 1, 0.7), // the share sold cost 0.566667 (1.7 / 3 half up): realized 0.133333, 2 shares left at 1.133333
      ...watermarks(WATERMARK, watermarkKeys(chainLedger.partitions), context, COVERAGE),
    ],
    positions: [
      // Polymarket says 4 shares at the Data API's unrounded average: one size mismatch, with its average.
      positionSnapshot({
        event_id: 'upstream-1',
        wallet: WALLET,
        market_id: MARKET,
        asset_id: outcomeToken(MARKET, 0),
        outcome: 'Yes',
        outcome_index: 0,
        size: 4,
        avg_price: 0.5234567891,
        cur_price: 0.7,
        initial_value_usdc: 4 * 0.5234567891,
        current_value_usdc: 4 * 0.7,
        cash_pnl_usdc: 4 * (0.7 - 0.5234567891),
        realized_pnl_usdc: 0,
        snapshot_at_ms: SNAPSHOT,
        ingested_at_ms: SNAPSHOT,
      }),
    ],
  });
  expect(await reconcilePositions(h.store, SNAPSHOT + 60_000)).toBe(1);
}, 120_000);
afterAll(() => h?.close());

async function read(path: string): Promise<any> {
  const response = await h.get(path);
  expect({ path, status: response.status, error: response.body.error }).toEqual({ path, status: 200, error: undefined });
  return response.body;
}

test('trader, PnL, positions, leaderboard and browse serve every amount rounded to 6 decimals by the one rule', async () => {
  const trader = await read(`/traders/${WALLET}`);
  const pnl = await read(`/traders/${WALLET}/pnl?days=7`);
  const positions = await read(`/positions/${WALLET}`);
  const leaderboard = await read('/leaderboard');
  const browse = await read('/traders/browse?sort_by=volume');

  expect(trader.data.lifetime).toMatchObject({ total_realized_pnl: 0.133333, volume_usdc: 2.4 });
  expect(positions.data.positions).toEqual([
    expect.objectContaining({
      size_shares: 2,
      // 1.133333 / 2 = 0.5666665: 0.566667, half up
      avg_entry_price: 0.566667,
      cost_basis_usdc: 1.133333,
      mark_price: 0.7,
      current_value_usdc: 1.4,
      unrealized_pnl_usdc: 0.266667,
      realized_pnl_usdc: 0.133333,
    }),
  ]);
  expect(trader.data.reconciliation.differences).toEqual([
    expect.objectContaining({ upstream_size_shares: 4, here_size_shares: 2, upstream_avg_price: 0.523457, here_avg_price: 0.566667 }),
  ]);
  expect(leaderboard.data).toEqual([expect.objectContaining({ wallet: WALLET, total_realized_pnl: 0.133333, volume_usdc: 2.4 })]);
  expect(browse.data).toEqual([expect.objectContaining({ wallet: WALLET, volume_usdc: 2.4 })]);
  expect(pnl.data.points.length).toBeGreaterThan(0);

  expect(breaches({ trader, pnl, positions, leaderboard, browse })).toEqual([]);
});

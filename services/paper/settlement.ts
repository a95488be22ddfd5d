/**
 * Settlement at resolution: every open paper position in the market is closed at its outcome's
 * payout per share (1 or 0), its cash credited, its PnL realized; resting orders in the market are
 * cancelled and release what they held. A market settled without a single winner is voided: a split
 * payout (e.g. 50-50, the lifecycle's `voided`) pays each share its payout, as on chain; payouts that
 * are not a distribution at all (negative, or not summing to 1) return the positions at their average
 * entry (cost basis back, realized PnL 0; fees already paid stay paid). Settling twice changes
 * nothing: only open positions settle.
 */
import type { SqlExecutor } from '../ports/control-store.js';
import { formatScaled, microsOf, MICRO, mulDiv, divide } from '../shared/decimal.js';
import { adjustAccount, cancelRestingOrder } from './ledger.js';
import { lockPaperAccount, ORDER_COLUMNS, POSITION_COLUMNS, toOrder, toPosition } from './paper-store.js';

export interface Resolution {
  marketId: string;
  outcomeTokenIds: string[];
  payouts: number[];
  winningOutcome: string | null;
}

/** Payout per outcome in micro-USDC per share, or null when the payouts void the market. */
function payoutsOf(resolution: Resolution): bigint[] | null {
  const payouts = resolution.payouts.map(microsOf);
  const valid =
    payouts.length === resolution.outcomeTokenIds.length &&
    payouts.length > 0 &&
    payouts.every((p) => p >= 0n && p <= MICRO) &&
    payouts.reduce((sum, p) => sum + p, 0n) === MICRO;
  return valid ? payouts : null;
}

/** Settles every paper account holding or resting in the market; returns the positions settled. */
export async function settleMarket(tx: SqlExecutor, resolution: Resolution, now: Date): Promise<number> {
  const accounts = await tx.query<{ account_id: string }>(
    `SELECT account_id::text AS account_id FROM paper_positions p
      WHERE market_id = $1 AND status = 'open' AND epoch = (SELECT epoch FROM paper_accounts a WHERE a.account_id = p.account_id)
     UNION
     SELECT account_id::text FROM paper_orders WHERE market_id = $1 AND status IN ('open', 'partial')
     ORDER BY account_id`,
    [resolution.marketId],
  );
  const payouts = payoutsOf(resolution);
  let settled = 0;
  for (const { account_id } of accounts) {
    const account = await lockPaperAccount(tx, account_id);
    if (!account) continue;
    const resting = (
      await tx.query(
        `SELECT ${ORDER_COLUMNS} FROM paper_orders WHERE account_id = $1 AND market_id = $2 AND status IN ('open', 'partial') FOR UPDATE`,
        [account_id, resolution.marketId],
      )
    ).map(toOrder);
    for (const order of resting) await cancelRestingOrder(tx, order, 'market_resolved', now);
    const positions = (
      await tx.query(
        `SELECT ${POSITION_COLUMNS} FROM paper_positions WHERE account_id = $1 AND epoch = $2 AND market_id = $3 AND status = 'open' FOR UPDATE`,
        [account_id, account.epoch, resolution.marketId],
      )
    ).map(toPosition);
    for (const position of positions) {
      const index = resolution.outcomeTokenIds.indexOf(position.assetId);
      const refunded = payouts === null || index < 0;
      // No single winner: a split payout (e.g. 50-50) pays each share its payout, as on chain; voided either way.
      const voided = refunded || !payouts.includes(MICRO);
      const price = refunded ? (position.shares > 0n ? divide(position.cost * MICRO, position.shares) : 0n) : payouts[index]!;
      const proceeds = refunded ? position.cost : mulDiv(position.shares, price, MICRO);
      const realized = proceeds - position.cost;
      await tx.query(
        `UPDATE paper_positions SET status = $4, settlement_price = $5, settled_at = $6, realized_pnl = realized_pnl + $7,
                shares = 0, cost = 0, reserved_shares = 0, updated_at = $6
          WHERE account_id = $1 AND epoch = $2 AND asset_id = $3`,
        [account_id, account.epoch, position.assetId, voided ? 'voided' : 'settled', formatScaled(price), now, formatScaled(realized)],
      );
      if (position.shares > 0n)
        await tx.query(
          `INSERT INTO paper_settlements (account_id, epoch, market_id, market_title, asset_id, outcome, kind, shares, price, proceeds, cost,
                                          realized_pnl, winning_outcome, settled_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT (account_id, epoch, asset_id) DO NOTHING`,
          [
            account_id,
            account.epoch,
            resolution.marketId,
            position.marketTitle,
            position.assetId,
            position.outcome,
            voided ? 'voided' : 'resolved',
            formatScaled(position.shares),
            formatScaled(price),
            formatScaled(proceeds),
            formatScaled(position.cost),
            formatScaled(realized),
            voided ? null : resolution.winningOutcome,
            now,
          ],
        );
      await adjustAccount(tx, account_id, { cash: proceeds, realizedPnl: realized });
      settled += 1;
    }
  }
  return settled;
}

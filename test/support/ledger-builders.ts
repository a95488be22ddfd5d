/**
 * Chain ledger events for position-ledger tests that need more than fills: transfers between wallets
 * and neg-risk conversions, each in a block of its own (the block orders it whatever order it is
 * applied in) at a given time. Amounts are in shares (6-decimal micro-units on the event).
 */
import type { ChainLedgerEvent } from '../../services/events/types.generated.js';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import { chainLedgerEvent, outcomeToken, txHash } from './events.js';

const micro = (shares: number) => String(Math.round(shares * 1e6));
const blockHash = (block: number) => `0x${block.toString(16).padStart(64, '0')}`;

/** `shares` of outcome `index` of `market` moved from `from` to `to` (the ERC-1155 TransferSingle of a wallet). */
export function chainTransfer(o: {
  tx: number;
  block: number;
  at: number;
  from: string;
  to: string;
  market: string;
  index: number;
  shares: number;
  group?: string;
}): ChainLedgerEvent {
  return chainLedgerEvent({
    kind: 'transfer',
    tx_hash: txHash(o.tx),
    log_index: 4,
    block_number: o.block,
    block_hash: blockHash(o.block),
    block_time_ms: o.at,
    contract: '0x4d97dcd97ec945f40cf65f87097ace5ea0476045',
    market_id: o.market,
    ledger_group: o.group ?? o.market,
    wallet: o.from,
    position_change: null,
    transfer: {
      from: o.from,
      to: o.to,
      asset_id: outcomeToken(o.market, o.index),
      outcome: o.index === 0 ? 'Yes' : 'No',
      outcome_index: o.index,
      shares_micro: micro(o.shares),
    },
  });
}

/** NegRiskAdapter.convertPositions of `shares` NO of each question in `indexSet` of neg-risk market `negRiskMarketId`. */
export function chainConversion(o: {
  tx: number;
  block: number;
  at: number;
  wallet: string;
  negRiskMarketId: string;
  indexSet: number;
  shares: number;
  /** The market's questions as the chain had them (condition ids; tokens outcomeToken(id, 0) YES, 1 NO); none: the catalog's. */
  questions?: string[];
  feeBips?: number;
}): ChainLedgerEvent {
  const questions = (o.questions ?? []).map((id, i) => ({
    question_index: i,
    market_id: id,
    outcomes: ['Yes', 'No'],
    outcome_token_ids: [outcomeToken(id, 0), outcomeToken(id, 1)],
    yes_index: 0,
  }));
  return chainLedgerEvent({
    kind: 'conversion',
    tx_hash: txHash(o.tx),
    log_index: 3,
    block_number: o.block,
    block_hash: blockHash(o.block),
    block_time_ms: o.at,
    contract: '0xd91e80cf2e7be2e162c6513ced06f1dd0da35296',
    market_id: '',
    ledger_group: o.negRiskMarketId,
    neg_risk: true,
    wallet: o.wallet,
    position_change: null,
    // Without questions the ledger takes the catalog's, as for a conversion published before events carried them.
    conversion: {
      neg_risk_market_id: o.negRiskMarketId,
      index_set: String(o.indexSet),
      amount_micro: micro(o.shares),
      question_count: questions.length,
      fee_bips: o.feeBips ?? 0,
      questions,
      questions_from: questions.length > 0 ? 'chain' : '',
      fee_from: o.feeBips === undefined ? '' : 'chain',
    },
  });
}

/** A CTF redemption of `market` by `wallet` paying `paid` USDC (the redeemer's whole balance of both outcomes). */
export function chainRedemption(o: {
  tx: number;
  block: number;
  at: number;
  wallet: string;
  market: string;
  paid: number;
}): ChainLedgerEvent {
  return chainLedgerEvent({
    kind: 'redemption',
    tx_hash: txHash(o.tx),
    log_index: 2,
    block_number: o.block,
    block_hash: blockHash(o.block),
    block_time_ms: o.at,
    market_id: o.market,
    ledger_group: o.market,
    wallet: o.wallet,
    position_change: {
      amount_micro: micro(o.paid),
      index_sets: ['1', '2'],
      redeemed_micro: [],
      outcome_token_ids: [outcomeToken(o.market, 0), outcomeToken(o.market, 1)],
      collateral_token: '0x2791bca1f2de4661ed88a30c99a7a9449aa84174',
    },
  });
}

/**
 * The collateral each wallet paid (negative) or received on these events, read from the events alone
 * (not the ledger): fills' USDC, redemptions' payouts, conversions' (k - 1) x (amount - fee); a transfer moves
 * no collateral. The accounting identity of a set of wallets: realized + cost basis left = this sum.
 */
export function collateralByWallet(events: readonly ChainLedgerEvent[]): Map<string, bigint> {
  const cash = new Map<string, bigint>();
  const add = (wallet: string, amount: bigint) => cash.set(wallet, (cash.get(wallet) ?? 0n) + amount);
  for (const e of events) {
    if (e.kind === 'fill' && e.fill) add(e.wallet, (e.fill.side === 'buy' ? -1n : 1n) * BigInt(e.fill.usdc_micro));
    else if (e.kind === 'redemption' && e.position_change) add(e.wallet, BigInt(e.position_change.amount_micro));
    else if (e.kind === 'conversion' && e.conversion) {
      const k = BigInt(e.conversion.index_set).toString(2).replace(/0/g, '').length;
      const amount = BigInt(e.conversion.amount_micro);
      // The adapter keeps its fee (amount x fee bips / 10,000, rounded down) of each collateral unit.
      add(e.wallet, BigInt(k - 1) * (amount - (amount * BigInt(e.conversion.fee_bips)) / 10_000n));
    }
  }
  return cash;
}

/** A wallet's ledger figures per token (USDC) from its rows: qty, realized, cost basis (realized - cash) and fees, and its realized total. */
export async function ledgerFigures(store: AnalyticsStore, wallet: string) {
  const usdc = (micro: string | bigint) => Number(micro) / 1e6;
  const rows = await store.query<{ asset_id: string; qty: string; realized: string; cash: string; fees: string }>(
    `SELECT asset_id, toString(sum(qty_delta * sign)) AS qty, toString(sum(realized * sign)) AS realized, toString(sum(cash * sign)) AS cash,
            toString(sum(toInt64(fee_micro) * sign)) AS fees
       FROM position_ledger WHERE wallet = {wallet:String} GROUP BY asset_id ORDER BY asset_id`,
    { wallet },
  );
  const byToken = Object.fromEntries(
    rows.map((r) => [
      r.asset_id,
      // realized + cost basis = net cash of the tracked shares, so the basis is realized - cash.
      { qty: usdc(r.qty), realized: usdc(r.realized), cost: usdc(BigInt(r.realized) - BigInt(r.cash)), fees: usdc(r.fees) },
    ]),
  );
  return { byToken, realized: usdc(rows.reduce((sum, r) => sum + BigInt(r.realized), 0n)) };
}

/**
 * Data API trade (a taker fill, one per match) -> TradeExecuted.
 * The Data API gives no trade id; the id is a hash of the fields that identify the fill on chain
 * (transaction, token, wallet, side, size, price), so re-ingesting the same fill yields the same id.
 */
import { CONDITION_ID, TX_HASH, WALLET } from '../shared/ids.js';
import crypto from 'node:crypto';
import type { Source, TradeExecuted } from '../events/types.js';
import { fail, ok, parseNumber, parseTimestampMs, parseTokenId, type Parsed } from './parse.js';

export function tradeId(parts: { txHash: string; assetId: string; wallet: string; side: string; size: number; price: number }): string {
  const material = [parts.txHash.toLowerCase(), parts.assetId, parts.wallet.toLowerCase(), parts.side, parts.size, parts.price].join('|');
  return crypto.createHash('sha256').update(material).digest('hex').slice(0, 32);
}

export function normalizeDataTrade(raw: unknown, source: Source, nowMs: number): Parsed<TradeExecuted> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return fail('trade is not an object');
  const t = raw as Record<string, unknown>;
  const marketId = typeof t.conditionId === 'string' ? t.conditionId.toLowerCase() : '';
  if (!CONDITION_ID.test(marketId)) return fail(`conditionId missing or malformed: ${JSON.stringify(t.conditionId)}`);
  const wallet = typeof t.proxyWallet === 'string' ? t.proxyWallet.toLowerCase() : '';
  if (!WALLET.test(wallet)) return fail(`proxyWallet malformed: ${JSON.stringify(t.proxyWallet)}`);
  const side = typeof t.side === 'string' ? t.side.toLowerCase() : '';
  if (side !== 'buy' && side !== 'sell') return fail(`side is not BUY or SELL: ${JSON.stringify(t.side)}`);
  const price = parseNumber(t.price, 'price');
  if (!price.ok) return price;
  if (price.value < 0 || price.value > 1) return fail(`price out of range 0..1: ${price.value}`);
  const size = parseNumber(t.size, 'size');
  if (!size.ok) return size;
  if (size.value <= 0) return fail(`size is not positive: ${size.value}`);
  const timestampMs = parseTimestampMs(t.timestamp);
  if (timestampMs === null) return fail(`timestamp unparseable: ${JSON.stringify(t.timestamp)}`);
  const asset = parseTokenId(t.asset, 'asset');
  if (!asset.ok) return asset;
  const assetId = asset.value;
  const txHash = typeof t.transactionHash === 'string' ? t.transactionHash.toLowerCase() : '';
  if (!TX_HASH.test(txHash)) return fail(`transactionHash malformed: ${JSON.stringify(t.transactionHash)}`);

  const outcome = typeof t.outcome === 'string' ? t.outcome : '';
  const outcomeIndex = typeof t.outcomeIndex === 'number' ? t.outcomeIndex : Number(t.outcomeIndex ?? 0);
  if (!Number.isInteger(outcomeIndex) || outcomeIndex < 0 || outcomeIndex > 255)
    return fail(`outcomeIndex invalid: ${JSON.stringify(t.outcomeIndex)}`);
  // YES is the outcome named Yes; for other binary markets (team names) it is the first outcome.
  const isYes = outcome.toLowerCase() === 'yes' || (outcome.toLowerCase() !== 'no' && outcomeIndex === 0);
  const roundedPrice = roundPrice(price.value);

  return ok({
    event_id: tradeId({ txHash, assetId, wallet, side, size: size.value, price: price.value }),
    source,
    market_id: marketId,
    market_title: typeof t.title === 'string' ? t.title : '',
    asset_id: assetId,
    wallet,
    side,
    outcome,
    outcome_index: outcomeIndex,
    price: roundedPrice,
    yes_price: isYes ? roundedPrice : roundPrice(1 - price.value),
    size: size.value,
    size_usdc: roundUsdc(size.value * price.value),
    timestamp_ms: timestampMs,
    tx_hash: txHash,
    ingested_at_ms: nowMs,
  });
}

// Upstream prices carry float noise (0.709999959); ticks are at most 0.0001 fine.
function roundPrice(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

function roundUsdc(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

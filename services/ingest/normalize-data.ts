/**
 * Data API rows of tracked wallets and markets -> wallet activity, position, holder and open
 * interest events. Numbers are JSON numbers here; timestamps unix seconds; non-trade activity has
 * side "", asset "", outcomeIndex 999 and sometimes conditionId "" (rewards).
 */
import { CONDITION_ID, WALLET } from '../shared/ids.js';
import type { HolderSnapshot, OpenInterest, PositionSnapshot, Source, WalletActivity } from '../events/types.js';
import { hashParts } from './content-id.js';
import { fail, ok, parseNumber, parseOptionalNumber, parseTimestampMs, parseTokenId, type Parsed } from './parse.js';

type Json = Record<string, unknown>;
const ACTIVITY_TYPES = new Set(['TRADE', 'SPLIT', 'MERGE', 'REDEEM', 'REWARD', 'CONVERSION', 'MAKER_REBATE', 'TAKER_REBATE', 'YIELD']);
const isObject = (raw: unknown): raw is Json => !!raw && typeof raw === 'object' && !Array.isArray(raw);
const text = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');

function wallet(raw: unknown, field: string): Parsed<string> {
  const value = typeof raw === 'string' ? raw.toLowerCase() : '';
  return WALLET.test(value) ? ok(value) : fail(`${field} malformed: ${JSON.stringify(raw)}`);
}

function marketId(raw: unknown, optional: boolean): Parsed<string> {
  const value = typeof raw === 'string' ? raw.toLowerCase() : '';
  if (value === '' && optional) return ok('');
  return CONDITION_ID.test(value) ? ok(value) : fail(`conditionId missing or malformed: ${JSON.stringify(raw)}`);
}

/** `/activity?user=` row. Id: tx hash + wallet + type + asset + size, so a re-read is the same event. */
export function normalizeActivity(raw: unknown, source: Source, nowMs: number): Parsed<WalletActivity> {
  if (!isObject(raw)) return fail('activity is not an object');
  const owner = wallet(raw.proxyWallet, 'proxyWallet');
  if (!owner.ok) return owner;
  const type = text(raw.type).toUpperCase();
  if (!ACTIVITY_TYPES.has(type)) return fail(`unknown activity type: ${JSON.stringify(raw.type)}`);
  // Rewards and rebates may have no market; everything else must name one.
  const market = marketId(raw.conditionId, type === 'REWARD' || type.endsWith('_REBATE') || type === 'YIELD');
  if (!market.ok) return market;
  const timestampMs = parseTimestampMs(raw.timestamp);
  if (timestampMs === null) return fail(`timestamp unparseable: ${JSON.stringify(raw.timestamp)}`);
  const size = parseNumber(raw.size ?? 0, 'size');
  if (!size.ok) return size;
  const usdcSize = parseNumber(raw.usdcSize ?? 0, 'usdcSize');
  if (!usdcSize.ok) return usdcSize;
  const txHash = text(raw.transactionHash).toLowerCase();
  // Rewards carry asset ""; a token id that arrived as a lossy JSON number is refused.
  const assetId = raw.asset === '' || raw.asset === undefined || raw.asset === null ? ok('') : parseTokenId(raw.asset, 'asset');
  if (!assetId.ok) return assetId;
  const asset = assetId.value;
  return ok({
    event_id: hashParts([txHash, owner.value, type, asset, market.value, size.value, usdcSize.value, timestampMs], 32),
    source,
    wallet: owner.value,
    market_id: market.value,
    type,
    asset_id: asset,
    side: text(raw.side).toUpperCase(),
    outcome: text(raw.outcome),
    outcome_index: Number.isInteger(raw.outcomeIndex) ? (raw.outcomeIndex as number) : 999,
    size: size.value,
    usdc_size: usdcSize.value,
    price: parseOptionalNumber(raw.price) ?? 0,
    tx_hash: txHash,
    timestamp_ms: timestampMs,
    ingested_at_ms: nowMs,
  });
}

/** `/positions?user=` row at a poll. Id: wallet + token + poll time (one row per position per poll). */
export function normalizePosition(
  raw: unknown,
  source: Source,
  snapshotAtMs: number,
  options: { closed?: boolean } = {},
): Parsed<PositionSnapshot> {
  if (!isObject(raw)) return fail('position is not an object');
  const owner = wallet(raw.proxyWallet, 'proxyWallet');
  if (!owner.ok) return owner;
  const market = marketId(raw.conditionId, false);
  if (!market.ok) return market;
  const assetId = parseTokenId(raw.asset, 'asset');
  if (!assetId.ok) return assetId;
  const asset = assetId.value;
  // /closed-positions rows carry no size: the position is closed, nothing is held.
  const size = options.closed && raw.size === undefined ? ok(0) : parseNumber(raw.size, 'size');
  if (!size.ok) return size;
  const num = (value: unknown) => parseOptionalNumber(value) ?? 0;
  return ok({
    event_id: `${owner.value}:${asset}:${snapshotAtMs}`,
    source,
    wallet: owner.value,
    market_id: market.value,
    asset_id: asset,
    outcome: text(raw.outcome),
    outcome_index: Number.isInteger(raw.outcomeIndex) ? (raw.outcomeIndex as number) : -1,
    size: size.value,
    avg_price: num(raw.avgPrice),
    initial_value_usdc: num(raw.initialValue),
    current_value_usdc: num(raw.currentValue),
    cash_pnl_usdc: num(raw.cashPnl),
    realized_pnl_usdc: num(raw.realizedPnl),
    total_bought: num(raw.totalBought),
    cur_price: num(raw.curPrice),
    redeemable: raw.redeemable === true,
    mergeable: raw.mergeable === true,
    neg_risk: raw.negativeRisk === true,
    snapshot_at_ms: snapshotAtMs,
    ingested_at_ms: snapshotAtMs,
  });
}

/** `/holders?market=` answer: [{token, holders:[...]}] -> one row per holder, ranked per token. */
export function normalizeHolders(
  raw: unknown,
  tokenToMarket: (tokenId: string) => string | undefined,
  source: Source,
  snapshotAtMs: number,
): Parsed<{ rows: HolderSnapshot[]; rejected: Array<{ raw: unknown; reason: string }> }> {
  if (!Array.isArray(raw)) return fail('holders answer is not an array');
  const rows: HolderSnapshot[] = [];
  const rejected: Array<{ raw: unknown; reason: string }> = [];
  for (const group of raw) {
    if (!isObject(group) || !Array.isArray(group.holders)) {
      rejected.push({ raw: group, reason: 'holders group has no holders array' });
      continue;
    }
    const token = text(group.token);
    const market = tokenToMarket(token);
    if (!market) {
      rejected.push({ raw: group, reason: `token ${token} is not a known market's token` });
      continue;
    }
    group.holders.forEach((holder: unknown, index: number) => {
      const owner = isObject(holder) ? wallet(holder.proxyWallet, 'proxyWallet') : fail<string>('holder is not an object');
      const amount = isObject(holder) ? parseOptionalNumber(holder.amount) : null;
      if (!owner.ok || amount === null) {
        rejected.push({ raw: holder, reason: owner.ok ? 'amount is not a number' : owner.reason });
        return;
      }
      rows.push({
        event_id: `${token}:${owner.value}:${snapshotAtMs}`,
        source,
        market_id: market,
        asset_id: token,
        wallet: owner.value,
        outcome_index: Number.isInteger((holder as Json).outcomeIndex) ? ((holder as Json).outcomeIndex as number) : -1,
        amount,
        rank: index + 1,
        snapshot_at_ms: snapshotAtMs,
        ingested_at_ms: snapshotAtMs,
      });
    });
  }
  return ok({ rows, rejected });
}

/** `/oi?market=` row {market, value}. */
export function normalizeOpenInterest(raw: unknown, source: Source, snapshotAtMs: number): Parsed<OpenInterest> {
  if (!isObject(raw)) return fail('open interest row is not an object');
  const market = marketId(raw.market, false);
  if (!market.ok) return market;
  const value = parseNumber(raw.value, 'value');
  if (!value.ok) return value;
  return ok({
    event_id: `${market.value}:${snapshotAtMs}`,
    source,
    market_id: market.value,
    open_interest_usdc: value.value,
    snapshot_at_ms: snapshotAtMs,
    ingested_at_ms: snapshotAtMs,
  });
}

/** `/v1/leaderboard` row -> a wallet worth tracking (rank is a string upstream). */
export function leaderboardWallet(raw: unknown): Parsed<{ wallet: string; rank: number; volumeUsdc: number; pnlUsdc: number }> {
  if (!isObject(raw)) return fail('leaderboard row is not an object');
  const owner = wallet(raw.proxyWallet, 'proxyWallet');
  if (!owner.ok) return owner;
  const rank = parseNumber(raw.rank, 'rank');
  if (!rank.ok) return rank;
  return ok({
    wallet: owner.value,
    rank: rank.value,
    volumeUsdc: parseOptionalNumber(raw.vol) ?? 0,
    pnlUsdc: parseOptionalNumber(raw.pnl) ?? 0,
  });
}

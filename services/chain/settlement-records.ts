/**
 * The logs of a block range -> settlement records, one per user-level fact: every OrderFilled (one fill
 * of one order, role from its transaction), user splits, merges, redemptions and conversions, and
 * condition resolutions. Internal legs are skipped (an exchange's MINT/MERGE match splitting through the
 * CTF, the NegRiskAdapter's own CTF calls) as Polymarket's PnL subgraph does; actions through a v2
 * collateral adapter name the adapter, so they wait for their transaction's receipt to name the user.
 *
 * Records are plain JSON (amounts as decimal strings) because the ones whose market the catalog does
 * not know yet are kept in the source's checkpoint until it does.
 */
import type { ChainLog } from '../ports/chain-reader.js';
import type { ContractBook } from './contract-book.js';
import {
  type AmmFundingLog,
  type AmmTradeLog,
  type ConversionLog,
  type DecodedLog,
  decodeLog,
  type MarketPreparedLog,
  type OrderFilledLog,
  type QuestionPreparedLog,
  type RedemptionLog,
  type ResolutionLog,
  type SplitMergeLog,
  type TransferLog,
} from './decode-log.js';

/** The adapter's CTF splits of a conversion's transaction between the adapter's previous log and the conversion. */
interface ConversionEvidence {
  splits: Array<{ conditionId: string; amountMicro: string }>;
  /** What the caller received per question (amount - fee), from the receipt; absent when it was not read or did not tell. */
  amountOutMicro?: string;
}

export interface LogPosition {
  blockNumber: number;
  blockHash: string;
  blockTimeMs: number;
  txHash: string;
  logIndex: number;
  contract: string;
}

interface Attributed {
  /** Whose position changed; empty while an adapter action waits for its receipt. */
  wallet: string;
  /** The collateral adapter the wallet acted through, or empty. */
  via: string;
}

export type SettlementRecord =
  /** amm: an FPMMBuy/FPMMSell of a legacy AMM, as a fill of its trader against the pool (`ammFill`). */
  (
    | { kind: 'fill'; at: LogPosition; role: 'maker' | 'taker' | 'amm'; fill: OrderFilledLog }
    | ({ kind: 'split' | 'merge'; at: LogPosition; change: SplitMergeLog } & Attributed)
    | ({ kind: 'redemption'; at: LogPosition; change: RedemptionLog } & Attributed)
    /** `evidence`: its transaction's adapter splits (conversion-evidence.ts); absent on records read before the source kept them. */
    | ({ kind: 'conversion'; at: LogPosition; conversion: ConversionLog; evidence?: ConversionEvidence } & Attributed)
    /** A neg-risk market or question the adapter prepared: what conversions are priced from (neg-risk-book.ts). */
    | { kind: 'prepared'; at: LogPosition; prepared: MarketPreparedLog | QuestionPreparedLog }
    | { kind: 'transfer'; at: LogPosition; transfer: WalletTransfer }
    | { kind: 'resolution'; at: LogPosition; resolution: ResolutionLog }
  ) & {
    /** When the gate first held it (wall clock, ms): a record is held at most CHAIN_HOLD_MAX_MS (settlement-gate.ts). */
    heldSinceMs?: number;
  };

/** One token of an ERC-1155 transfer between two user wallets. */
interface WalletTransfer {
  from: string;
  to: string;
  tokenId: string;
  sharesMicro: string;
  /** The token's place in a TransferBatch (its event id says it); null for a TransferSingle. */
  part: number | null;
}

interface Rejected {
  log: ChainLog;
  reason: string;
}

export interface Interpreted {
  records: SettlementRecord[];
  rejected: Rejected[];
  /** Transactions whose adapter actions need the receipt's ERC-1155 transfers to name the user. */
  receiptsNeeded: string[];
}

/** Interprets logs (any order); records come out in chain order (block, log index). */
export function interpretLogs(logs: readonly ChainLog[], blockTimes: ReadonlyMap<number, number>, book: ContractBook): Interpreted {
  const sorted = [...logs].sort((a, b) => Number(a.blockNumber - b.blockNumber) || a.logIndex - b.logIndex);
  const decoded: Array<{ log: ChainLog; value: DecodedLog }> = [];
  const rejected: Rejected[] = [];
  for (const log of sorted) {
    const result = decodeLog(log, book);
    if (result.ok) decoded.push({ log, value: result.value });
    else rejected.push({ log, reason: result.reason });
  }
  // Exchanges with an OrdersMatched in each transaction: a fill without one came from the operator's
  // direct fillOrder (v1), which has no taker order, so the order's own fill is the match.
  const matchedIn = new Map<string, Set<string>>();
  for (const { log, value } of decoded) {
    if (value.type !== 'orders_matched') continue;
    const set = matchedIn.get(log.transactionHash) ?? new Set<string>();
    set.add(log.address);
    matchedIn.set(log.transactionHash, set);
  }
  const records: SettlementRecord[] = [];
  const receiptsNeeded = new Set<string>();
  // Per transaction, the adapter's own CTF splits since its last log there: a conversion's splits of
  // the questions it gives YES of (an earlier user split through the adapter ends with the adapter's log).
  const adapterSplits = new Map<string, ConversionEvidence['splits']>();
  for (const { log, value } of decoded) {
    const blockTimeMs = blockTimes.get(Number(log.blockNumber));
    if (blockTimeMs === undefined) throw new Error(`no block time for block ${log.blockNumber}`);
    const at: LogPosition = {
      blockNumber: Number(log.blockNumber),
      blockHash: log.blockHash,
      blockTimeMs,
      txHash: log.transactionHash,
      logIndex: log.logIndex,
      contract: log.address,
    };
    const actor = (address: string): Attributed | null => {
      if (book.isInternalActor(address)) return null;
      if (book.isCollateralAdapter(address)) {
        receiptsNeeded.add(log.transactionHash);
        return { wallet: '', via: address };
      }
      return { wallet: address, via: '' };
    };
    const tx = log.transactionHash;
    const address = log.address.toLowerCase();
    if (value.type === 'split' && address === book.conditionalTokens && value.stakeholder === book.negRiskAdapter) {
      const splits = adapterSplits.get(tx) ?? [];
      splits.push({ conditionId: value.conditionId, amountMicro: value.amountMicro });
      adapterSplits.set(tx, splits);
    }
    const splitsBefore = address === book.negRiskAdapter ? (adapterSplits.get(tx) ?? []) : [];
    if (address === book.negRiskAdapter) adapterSplits.delete(tx);
    switch (value.type) {
      case 'order_filled': {
        const taker = value.taker === log.address || !matchedIn.get(log.transactionHash)?.has(log.address);
        records.push({ kind: 'fill', at, role: taker ? 'taker' : 'maker', fill: value });
        break;
      }
      case 'split':
      case 'merge': {
        const who = actor(value.stakeholder);
        if (who) records.push({ kind: value.type, at, change: value, ...who });
        break;
      }
      case 'redemption': {
        const who = actor(value.redeemer);
        if (who) records.push({ kind: 'redemption', at, change: value, ...who });
        break;
      }
      case 'conversion': {
        const who = actor(value.stakeholder);
        if (who) records.push({ kind: 'conversion', at, conversion: value, evidence: { splits: splitsBefore }, ...who });
        break;
      }
      case 'market_prepared':
      case 'question_prepared':
        records.push({ kind: 'prepared', at, prepared: value });
        break;
      case 'resolution':
        records.push({ kind: 'resolution', at, resolution: value });
        break;
      case 'transfer':
        records.push(...walletTransfers(value, at, book));
        break;
      case 'amm_trade': {
        const fill = ammFill(value, log.address.toLowerCase(), book);
        if (typeof fill === 'string') rejected.push({ log, reason: fill });
        else if (fill) records.push({ kind: 'fill', at, role: 'amm', fill });
        break;
      }
      case 'amm_funding':
        rejected.push({ log, reason: ammFundingReason(value, log) });
        break;
      default:
        // OrdersMatched repeats the taker fill (volume is counted once, from the taker fill).
        break;
    }
  }
  return { records, rejected, receiptsNeeded: [...receiptsNeeded] };
}

/**
 * Names the user of adapter actions from the ERC-1155 transfers in their transaction's receipt: the
 * adapter sends a split's new positions to the user, and receives the positions a user merges,
 * redeems or converts. Returns the reason when the receipt has no such transfer.
 */
export function attributeAdapterActions(
  records: SettlementRecord[],
  receiptLogs: ReadonlyMap<string, readonly ChainLog[]>,
  book: ContractBook,
): { records: SettlementRecord[]; rejected: Array<{ record: SettlementRecord; reason: string }> } {
  const out: SettlementRecord[] = [];
  const rejected: Array<{ record: SettlementRecord; reason: string }> = [];
  for (const record of records) {
    if (!('via' in record) || record.via === '' || record.wallet !== '') {
      out.push(record);
      continue;
    }
    const transfers = (receiptLogs.get(record.at.txHash) ?? [])
      .filter((log) => log.address === book.conditionalTokens)
      .map((log) => decodeLog(log, book))
      .flatMap((result) => (result.ok && result.value.type === 'transfer' ? [result.value as TransferLog] : []));
    const adapter = record.via;
    const user =
      record.kind === 'split'
        ? transfers.find((t) => t.from === adapter && !isSystem(t.to, book))?.to
        : transfers.find((t) => t.to === adapter && !isSystem(t.from, book))?.from;
    if (user) out.push({ ...record, wallet: user });
    else
      rejected.push({
        record,
        reason: `${record.kind} through adapter ${adapter} in ${record.at.txHash} has no ERC-1155 transfer naming the user`,
      });
  }
  return { records: out, rejected };
}

function isSystem(address: string, book: ContractBook): boolean {
  return book.isInternalActor(address) || book.isCollateralAdapter(address) || /^0x0{40}$/.test(address);
}

/**
 * The wallet-to-wallet legs of an ERC-1155 transfer, one per token with shares moved. A leg from or to
 * a system address (the zero address, an exchange, the CTF, the NegRiskAdapter, a collateral adapter,
 * a collateral token), or made by one as the operator, belongs to a fill, split, merge, redemption or
 * conversion, already recorded from that contract's event: the exchanges move every fill's shares
 * themselves, and a v1 operator's direct fillOrder moves them between the operator and the maker with
 * the exchange as the CTF's operator. A transfer to oneself changes nothing.
 */
function walletTransfers(value: TransferLog, at: LogPosition, book: ContractBook): SettlementRecord[] {
  if (book.isSystem(value.operator) || book.isSystem(value.from) || book.isSystem(value.to) || value.from === value.to) return [];
  return value.ids.flatMap((tokenId, i) =>
    value.values[i] === '0'
      ? []
      : [
          {
            kind: 'transfer' as const,
            at,
            transfer: { from: value.from, to: value.to, tokenId, sharesMicro: value.values[i]!, part: value.batch ? i : null },
          },
        ],
  );
}

/**
 * An FPMMBuy/FPMMSell as a fill of the trader's (FixedProductMarketMaker.sol `buy`/`sell`). The pool
 * takes its fee in collateral on top of what buys the tokens: a buy pays investmentAmount, of which
 * feeAmount is the fee, so investmentAmount - feeAmount bought outcomeTokensBought; a sell receives
 * returnAmount after the fee, so the tokens sold fetched returnAmount + feeAmount. `usdcMicro` is that
 * amount before fees and `feeMicro` the fee, as for an exchange v2 fill (fee in USDC, served apart).
 * Polymarket's PnL subgraph prices a buy at investmentAmount / tokens and a sell at returnAmount /
 * tokens (the fee inside the price); the cash is the same, split into price and fee here.
 * A trade of 0 tokens changes nothing and is skipped (as the subgraph does); returns the reason when
 * the outcome index is not one of the market's.
 */
function ammFill(trade: AmmTradeLog, pool: string, book: ContractBook): OrderFilledLog | string | null {
  if (trade.sharesMicro === '0') return null;
  const tokenId = book.marketMakerTokens(pool)?.[trade.outcomeIndex];
  if (!tokenId) return `FPMM ${pool}: outcome ${trade.outcomeIndex} is not one of its market's outcomes`;
  const collateral = BigInt(trade.collateralMicro);
  const fee = BigInt(trade.feeMicro);
  if (trade.side === 'buy' && fee > collateral) return `FPMM ${pool}: a buy's fee ${fee} exceeds its investment ${collateral}`;
  const beforeFees = trade.side === 'buy' ? collateral - fee : collateral + fee;
  return {
    type: 'order_filled',
    version: 0,
    orderHash: '',
    maker: trade.trader,
    taker: pool,
    side: trade.side,
    tokenId,
    sharesMicro: trade.sharesMicro,
    usdcMicro: beforeFees.toString(),
    feeMicro: trade.feeMicro,
    feeAsset: 'usdc',
  };
}

/**
 * Liquidity added to or removed from a legacy AMM is not booked (docs/CHAIN.md "Legacy AMM"): the
 * funder's stake is a claim on the pool, which no outcome token or mark represents. It is dead-lettered
 * with this reason, so what was left out is counted and can be replayed once it is.
 */
function ammFundingReason(funding: AmmFundingLog, log: ChainLog): string {
  const what = funding.added ? 'FPMMFundingAdded' : 'FPMMFundingRemoved';
  return `${what} of ${funding.funder} on FPMM ${log.address.toLowerCase()} (amounts ${funding.amountsMicro.join('/')}, pool shares ${funding.poolSharesMicro}): legacy AMM liquidity is not booked (docs/CHAIN.md "Legacy AMM")`;
}

/** The wallets whose positions a record changes (none for resolutions and preparations; a transfer's sender and receiver). */
export function walletsOf(record: SettlementRecord): string[] {
  if (record.kind === 'fill') return [record.fill.maker];
  if (record.kind === 'resolution' || record.kind === 'prepared') return [];
  if (record.kind === 'transfer') return [record.transfer.from, record.transfer.to];
  return [record.wallet];
}

/**
 * What a conversion's own transaction says about its market, for markets whose MarketPrepared and
 * QuestionPrepared the source never read (prepared before its first block). From
 * Polymarket/neg-risk-ctf-adapter NegRiskAdapter.convertPositions: for every question index below the
 * market's count that is NOT in the index set, in index order, the adapter splits `amount` of its
 * wrapped collateral on the CTF (a CTF PositionSplit whose stakeholder is the adapter, of that
 * question's condition), then burns the NO, pays (k - 1) x (amount - fee) collateral and sends
 * amount - fee YES of each split question to the caller, and last emits PositionsConverted. So with
 * k = the set's bits and s = those splits, the market had k + s questions, and the YES transfer to the
 * caller (or, with no YES legs, its collateral) tells the fee.
 *
 * The splits are read with the logs the source asks for anyway (the CTF's PositionSplit); the fee needs
 * the receipt, read only when the source does not know the market's MarketPrepared.
 */
import { decodeEventLog, erc20Abi, type Hex } from 'viem';
import type { ChainLog } from '../ports/chain-reader.js';
import type { CatalogMarket, ChainCatalog } from './catalog.js';
import type { ContractBook } from './contract-book.js';
import { decodeLog, type TransferLog } from './decode-log.js';
import { negRiskConditionId, negRiskQuestionId } from './neg-risk-book.js';
import type { SettlementRecord } from './settlement-records.js';

export interface EvidenceQuestion {
  index: number;
  conditionId: string;
}

/** NegRiskIdLib: a question's index is one byte. */
const MAX_QUESTIONS = 256;
/** NegRiskAdapter.FEE_DENOMINATOR. */
const FEE_DENOMINATOR = 10_000n;

type Conversion = Extract<SettlementRecord, { kind: 'conversion' }>;

export function popcount(set: bigint): number {
  let n = 0;
  for (let v = set; v > 0n; v >>= 1n) if (v & 1n) n += 1;
  return n;
}

/** Would convertPositions accept this index set for a market of `count` questions? */
export function acceptedIndexSet(indexSet: bigint, count: number): boolean {
  return count >= 2 && indexSet !== 0n && indexSet >> BigInt(count) === 0n;
}

export type TransactionQuestions = { ok: true; questions: EvidenceQuestion[] } | { ok: false; reason: string };

/**
 * The market's questions 0..k + s - 1 as the conversion's splits tell them, or why they do not fit: the
 * splits must be exactly the questions below k + s not in the index set, in index order, each of
 * `amount`. Null when the record carries no evidence (read before the source kept it).
 */
export function questionsFromTransaction(record: Conversion, adapter: string): TransactionQuestions | null {
  const { evidence, conversion } = record;
  if (!evidence) return null;
  const indexSet = BigInt(conversion.indexSet);
  const count = popcount(indexSet) + evidence.splits.length;
  if (count > MAX_QUESTIONS) return { ok: false, reason: `${count} questions: more than a market can have` };
  if (!acceptedIndexSet(indexSet, count))
    return { ok: false, reason: `index set ${conversion.indexSet} with ${evidence.splits.length} splits: not a set the adapter accepts` };
  const questions: EvidenceQuestion[] = [];
  let split = 0;
  for (let index = 0; index < count; index++) {
    const conditionId = negRiskConditionId(adapter, negRiskQuestionId(conversion.negRiskMarketId, index));
    questions.push({ index, conditionId });
    if ((indexSet >> BigInt(index)) & 1n) continue;
    const seen = evidence.splits[split++];
    if (seen?.conditionId !== conditionId || seen.amountMicro !== conversion.amountMicro)
      return { ok: false, reason: `split ${split - 1} is not question ${index} of the market for ${conversion.amountMicro}` };
  }
  return { ok: true, questions };
}

/**
 * The questions the catalog names for the market (0..n - 1, each with its two tokens), when they are
 * contiguous and the index set fits them: the last resort for a conversion the chain does not price.
 */
export function questionsFromCatalog(record: Conversion, adapter: string, catalog: ChainCatalog): EvidenceQuestion[] | null {
  const questions: EvidenceQuestion[] = [];
  for (let index = 0; index < MAX_QUESTIONS; index++) {
    const conditionId = negRiskConditionId(adapter, negRiskQuestionId(record.conversion.negRiskMarketId, index));
    if (!catalogTokens(catalog.condition(conditionId))) break;
    questions.push({ index, conditionId });
  }
  return acceptedIndexSet(BigInt(record.conversion.indexSet), questions.length) ? questions : null;
}

export const catalogTokens = (market: CatalogMarket | undefined): market is CatalogMarket => market?.tokenIds.length === 2;

/**
 * From the receipt: what the caller received per question. With YES legs, the CTF transfer from the
 * adapter to the caller (every value amount - fee); with none (every question converted), the
 * collateral the wrapped collateral released to it, (k - 1) x (amount - fee). Logs of the adapter's
 * earlier actions in the same transaction are not looked at.
 */
export function amountOutFromReceipt(record: Conversion, receipt: readonly ChainLog[], book: ContractBook): string | null {
  const adapter = book.negRiskAdapter;
  const caller = record.conversion.stakeholder;
  const sorted = [...receipt].sort((a, b) => a.logIndex - b.logIndex);
  const end = sorted.findIndex((log) => log.logIndex === record.at.logIndex);
  if (end < 0) return null;
  let start = end - 1;
  while (start >= 0 && sorted[start]!.address.toLowerCase() !== adapter) start--;
  const window = sorted.slice(start + 1, end);
  const amount = BigInt(record.conversion.amountMicro);
  let out: bigint | null = null;
  if ((record.evidence?.splits.length ?? 0) > 0) {
    const sent = window
      .filter((log) => log.address.toLowerCase() === book.conditionalTokens)
      .map((log) => decodeLog(log, book))
      .flatMap((r) => (r.ok && r.value.type === 'transfer' ? [r.value as TransferLog] : []))
      .filter((t) => t.from === adapter && t.to === caller);
    const values = new Set(sent.flatMap((t) => t.values));
    if (sent.length !== 1 || values.size !== 1) return null;
    out = BigInt([...values][0]!);
  } else {
    const k = BigInt(popcount(BigInt(record.conversion.indexSet)));
    const released = window.flatMap((log) => {
      const value = collateralReleased(log, book.wrappedCollateral, caller);
      return value === null ? [] : [value];
    });
    if (released.length !== 1 || k < 2n || released[0]! % (k - 1n) !== 0n) return null;
    out = released[0]! / (k - 1n);
  }
  return out <= amount ? out.toString() : null;
}

/** An ERC-20 Transfer from the wrapped collateral (its release of the underlying) to `to`: its value. */
function collateralReleased(log: ChainLog, wrapped: string, to: string): bigint | null {
  try {
    const decoded = decodeEventLog({ abi: erc20Abi, data: log.data as Hex, topics: log.topics as [Hex, ...Hex[]], strict: true });
    if (decoded.eventName !== 'Transfer') return null;
    const { from, to: receiver, value } = decoded.args;
    return from.toLowerCase() === wrapped && receiver.toLowerCase() === to ? value : null;
  } catch {
    return null;
  }
}

/**
 * The fee in basis points that takes exactly amount - out: the smallest b with floor(amount x b /
 * 10,000) = amount - out (the market's own may be higher when the amount is small; the fee of this
 * conversion is the same). Null when no fee of at most 10,000 gives it.
 */
export function feeBipsFor(amountMicro: string, amountOutMicro: string): number | null {
  const amount = BigInt(amountMicro);
  const fee = amount - BigInt(amountOutMicro);
  if (fee < 0n || amount === 0n) return null;
  const bips = (fee * FEE_DENOMINATOR + amount - 1n) / amount;
  return bips <= FEE_DENOMINATOR && (amount * bips) / FEE_DENOMINATOR === fee ? Number(bips) : null;
}

/**
 * Reads one block range of settlement logs: eth_getLogs (configured contracts and topics), the headers
 * of the blocks with logs (times, batched) plus any the caller asks for, and the receipts of adapter
 * actions (when the CTF's transfers are not among the logs) and of conversions in neg-risk markets whose
 * fee the source does not know (their transfers, collateral included, tell it: conversion-evidence.ts).
 * Every log is checked against its block's header: a log whose block hash is not the
 * header's hash (or a log the node flags `removed`) means a reorg happened while reading, and the range
 * is read again later rather than published half from each fork.
 */
import type { DeadLetter, Source } from '../events/types.js';
import type { ChainBlock, ChainLog, ChainReader } from '../ports/chain-reader.js';
import type { ContractBook } from './contract-book.js';
import { amountOutFromReceipt } from './conversion-evidence.js';
import { attributeAdapterActions, interpretLogs, type SettlementRecord } from './settlement-records.js';

export class ReorgInFlightError extends Error {
  override readonly name = 'ReorgInFlightError';
}

export interface RangeRead {
  records: SettlementRecord[];
  deadLetters: DeadLetter[];
  /** Headers of the blocks with logs and of the extra blocks asked for. */
  headers: Map<number, ChainBlock>;
  logs: number;
}

/**
 * The eth_getLogs window. It doubles after clean answers until the provider refuses a range, then
 * searches between the largest size served and the smallest refused (a provider's limit is usually a
 * fixed number of blocks or results, so a few refusals find it). After 200 clean answers in a row the
 * refused size is forgotten and the window probes upward again: a limit on results moves with traffic.
 */
export class AdaptiveWindow {
  private served = 0;
  private refusedAt: number | null = null;
  private clean = 0;

  constructor(
    public size: number,
    private readonly max: number,
  ) {}

  refused(): void {
    this.refusedAt = this.size;
    this.clean = 0;
    const between = Math.floor((this.served + this.size) / 2);
    this.size = Math.max(1, this.served > 0 && this.served < this.size ? Math.max(this.served, between) : Math.floor(this.size / 2));
    if (this.size >= (this.refusedAt ?? Number.POSITIVE_INFINITY)) this.size = Math.max(1, this.refusedAt - 1);
  }

  /** `span`: blocks the answered range covered (a range cut short at the head says nothing about the limit). */
  succeeded(span: number = this.size): void {
    if (span < this.size) return;
    this.served = Math.max(this.served, this.size);
    if (++this.clean >= 200) {
      this.refusedAt = null;
      this.clean = 0;
    }
    const ceiling = this.refusedAt === null ? this.max : this.refusedAt - 1;
    const next = this.refusedAt === null ? this.size * 2 : Math.floor((this.size + this.refusedAt) / 2);
    this.size = Math.max(1, Math.min(this.max, ceiling, next));
  }
}

export async function readRange(
  reader: ChainReader,
  book: ContractBook,
  range: { from: number; to: number; extraHeaders?: number[] },
  context: { source: Source; nowMs: number },
  /** Does the source know this neg-risk market's fee (its MarketPrepared)? Conversions of others read their receipt. */
  feeKnown: (negRiskMarketId: string) => boolean = () => false,
): Promise<RangeRead> {
  const query = book.logQuery(range.to);
  const logs = await reader.logs({
    addresses: query.addresses,
    topics: [query.topics],
    fromBlock: BigInt(range.from),
    toBlock: BigInt(range.to),
  });
  if (logs.some((log) => log.removed)) throw new ReorgInFlightError(`the node flagged logs in ${range.from}..${range.to} as removed`);
  const wanted = new Set<number>([...logs.map((log) => Number(log.blockNumber)), ...(range.extraHeaders ?? [])]);
  const found = await reader.blocks([...wanted].map(BigInt));
  const headers = new Map<number, ChainBlock>();
  for (const [number, block] of found) headers.set(Number(number), block);
  for (const number of wanted) {
    if (!headers.has(number)) throw new ReorgInFlightError(`block ${number} is not on the node (any more)`);
  }
  for (const log of logs) {
    if (headers.get(Number(log.blockNumber))?.hash !== log.blockHash)
      throw new ReorgInFlightError(
        `log ${log.transactionHash}:${log.logIndex} is of block hash ${log.blockHash}, the node now has another`,
      );
  }
  const times = new Map([...headers].map(([number, block]) => [number, block.timestamp * 1000]));
  const interpreted = interpretLogs(logs, times, book);
  const preparedHere = new Set(
    interpreted.records.flatMap((r) =>
      r.kind === 'prepared' && r.prepared.type === 'market_prepared' ? [r.prepared.negRiskMarketId] : [],
    ),
  );
  const feeUnknown = new Set(
    interpreted.records.filter(
      (r) =>
        r.kind === 'conversion' &&
        r.evidence !== undefined &&
        !preparedHere.has(r.conversion.negRiskMarketId) &&
        !feeKnown(r.conversion.negRiskMarketId),
    ),
  );
  const receipts = new Map<string, ChainLog[]>();
  // With the CTF's transfers in the range's logs, an adapter action's transfers are there already: its
  // transaction's CTF logs are what its receipt would add, so no receipt is fetched.
  // A conversion whose fee is unknown needs its whole receipt: the collateral it releases is an ERC-20
  // transfer, never among the range's logs.
  const needed = new Set([...(book.readsTransfers ? [] : interpreted.receiptsNeeded), ...[...feeUnknown].map((r) => r.at.txHash)]);
  if (book.readsTransfers) {
    const wanted = new Set(interpreted.receiptsNeeded);
    for (const log of logs) {
      if (!wanted.has(log.transactionHash)) continue;
      receipts.set(log.transactionHash, [...(receipts.get(log.transactionHash) ?? []), log]);
    }
  }
  // Concurrent: the reader paces them within its budget and batches what the provider allows.
  const fetched = await Promise.all([...needed].map(async (hash) => [hash, await reader.receipt(hash)] as const));
  for (const [hash, receipt] of fetched) {
    const block = receipt ? headers.get(Number(receipt.blockNumber)) : undefined;
    if (!receipt || block?.hash !== receipt.blockHash)
      throw new ReorgInFlightError(`receipt of ${hash} is not in the block its logs came from`);
    receipts.set(hash, receipt.logs);
  }
  const withFees = interpreted.records.map((r) => {
    if (r.kind !== 'conversion' || !r.evidence || !feeUnknown.has(r)) return r;
    const out = amountOutFromReceipt(r, receipts.get(r.at.txHash) ?? [], book);
    return out === null ? r : { ...r, evidence: { ...r.evidence, amountOutMicro: out } };
  });
  const attributed = attributeAdapterActions(withFees, receipts, book);
  const deadLetter = (reason: string, raw: unknown): DeadLetter => ({
    stage: 'ingest',
    source: context.source,
    origin: 'polygon/eth_getLogs',
    reason,
    raw: JSON.stringify(raw, (_key, value) => (typeof value === 'bigint' ? value.toString() : value)),
    at_ms: context.nowMs,
  });
  return {
    records: attributed.records,
    deadLetters: [
      ...interpreted.rejected.map(({ log, reason }) => deadLetter(reason, log)),
      ...attributed.rejected.map(({ record, reason }) => deadLetter(reason, record)),
    ],
    headers,
    logs: logs.length,
  };
}

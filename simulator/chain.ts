/**
 * The simulated Polygon chain: one block per simulated second from the world's start (Polygon makes
 * one about every 2 s; one per second keeps a block's time equal to the Data API timestamp of the
 * trades in it), holding that second's journal entries as transactions in journal order.
 *
 * A reorg replaces the last `depth` blocks: they get new hashes (and so every later block a new
 * parent), and their logs are numbered from the block's fork count (a log of another contract first,
 * as far as the exchanges' logs tell), so every orphaned log is replaced by a log with another block
 * hash and log index. The transactions keep their order: reversing them (as this once did) put a sale
 * before the split that funded it, a block no chain can have. Blocks are rebuilt on demand; the
 * latest ones are cached.
 */
import { keccak256, toHex } from 'viem';
import { POLYGON_CHAIN_ID } from '../services/chain/polygon-contracts.js';
import type { JournalEntry } from './chain-journal.js';
import { type SimLog, SimTransactions, type SimTransaction } from './chain-transactions.js';
import type { SimulatorState } from './state.js';

/** Block number of the chain's first second (the world's origin, or an earlier resolution): near Polygon's height in 2026. */
export const SIM_GENESIS_BLOCK = 80_000_000;
const CACHED_BLOCKS = 4_096;

export interface SimChainOptions {
  /** Epoch ms from which trades settle on the v2 exchanges; default: the state's (which decided its fees with it). */
  v2FromMs?: number;
}

export interface ChainBlock {
  number: number;
  hash: string;
  parentHash: string;
  timestamp: number;
  transactions: Array<SimTransaction & { logIndexStart: number }>;
}

export interface LogQuery {
  fromBlock: number;
  toBlock: number;
  addresses: ReadonlySet<string> | null;
  /** topic filters by position: null = any. */
  topics: Array<ReadonlySet<string> | null>;
}

export interface ChainLogEntry extends SimLog {
  blockNumber: number;
  blockHash: string;
  transactionHash: string;
  transactionIndex: number;
  logIndex: number;
}

export class SimulatedChain {
  readonly chainId = POLYGON_CHAIN_ID;
  readonly transactions: SimTransactions;
  private readonly originSecond: number;
  private readonly forks = new Map<number, number>();
  private readonly cache = new Map<string, ChainBlock>();
  private readonly txIndex = new Map<string, number>();
  private indexedEntries = 0;
  reorgs = 0;

  constructor(
    private readonly state: SimulatorState,
    options: SimChainOptions = {},
  ) {
    // Markets that closed before the generated history still resolve on chain: start there.
    this.originSecond = Math.min(Math.floor(state.world.originMs / 1000), state.journal.entries[0]?.second ?? Number.POSITIVE_INFINITY);
    const v2FromMs = options.v2FromMs ?? state.v2FromMs;
    this.transactions = new SimTransactions(state, v2FromMs);
  }

  /** The newest block: the last second generated completely. */
  head(): number {
    return this.blockOfSecond(this.state.generatedThroughSecond);
  }

  blockOfSecond(second: number): number {
    return SIM_GENESIS_BLOCK + (second - this.originSecond);
  }

  secondOfBlock(number: number): number {
    return this.originSecond + (number - SIM_GENESIS_BLOCK);
  }

  blockHash(number: number): string {
    return keccak256(toHex(`sim-block:${this.state.seed}:${number}:${this.forks.get(number) ?? 0}`));
  }

  block(number: number): ChainBlock | null {
    if (number < SIM_GENESIS_BLOCK || number > this.head()) return null;
    const fork = this.forks.get(number) ?? 0;
    const key = `${number}:${fork}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const second = this.secondOfBlock(number);
    const [start, end] = this.state.journal.range(second, second);
    const entries = this.state.journal.entries.slice(start, end);
    let logIndex = fork;
    const transactions = entries.map((entry: JournalEntry) => {
      const tx = this.transactions.transaction(entry);
      const placed = { ...tx, logIndexStart: logIndex };
      logIndex += tx.logs.length;
      return placed;
    });
    const block: ChainBlock = {
      number,
      hash: this.blockHash(number),
      parentHash: number > SIM_GENESIS_BLOCK ? this.blockHash(number - 1) : `0x${'0'.repeat(64)}`,
      timestamp: second,
      transactions,
    };
    this.cache.set(key, block);
    if (this.cache.size > CACHED_BLOCKS) this.cache.delete(this.cache.keys().next().value as string);
    return block;
  }

  /** Logs matching the query, in chain order; only blocks with journal entries are built. */
  logs(query: LogQuery): ChainLogEntry[] {
    const from = Math.max(query.fromBlock, SIM_GENESIS_BLOCK);
    const to = Math.min(query.toBlock, this.head());
    if (to < from) return [];
    const [start, end] = this.state.journal.range(this.secondOfBlock(from), this.secondOfBlock(to));
    const out: ChainLogEntry[] = [];
    let lastSecond = Number.NaN;
    for (let i = start; i < end; i++) {
      const second = (this.state.journal.entries[i] as JournalEntry).second;
      if (second === lastSecond) continue;
      lastSecond = second;
      const block = this.block(this.blockOfSecond(second)) as ChainBlock;
      block.transactions.forEach((tx, transactionIndex) => {
        tx.logs.forEach((log, offset) => {
          if (query.addresses && !query.addresses.has(log.address)) return;
          // A log with fewer topics than the filter has positions never matches, even where they are
          // wildcards (geth's filterLogs).
          if (query.topics.length > log.topics.length) return;
          if (query.topics.some((wanted, position) => wanted !== null && !wanted.has(log.topics[position] ?? ''))) return;
          out.push({
            ...log,
            blockNumber: block.number,
            blockHash: block.hash,
            transactionHash: tx.hash,
            transactionIndex,
            logIndex: tx.logIndexStart + offset,
          });
        });
      });
    }
    return out;
  }

  /** The block and position of a transaction, or null when it is not (yet) on chain. */
  locate(txHash: string): { block: ChainBlock; transactionIndex: number } | null {
    const { entries } = this.state.journal;
    for (; this.indexedEntries < entries.length; this.indexedEntries++) {
      const entry = entries[this.indexedEntries] as JournalEntry;
      this.txIndex.set(this.transactions.txHashOf(entry), entry.second);
    }
    const second = this.txIndex.get(txHash.toLowerCase());
    if (second === undefined) return null;
    const block = this.block(this.blockOfSecond(second));
    if (!block) return null;
    const transactionIndex = block.transactions.findIndex((tx) => tx.hash === txHash.toLowerCase());
    return transactionIndex < 0 ? null : { block, transactionIndex };
  }

  /** Replaces the newest `depth` blocks with a competing fork (new hashes and log indexes). */
  reorg(depth: number): { from: number; to: number } {
    return this.reorgFrom(this.head() - depth + 1);
  }

  /**
   * Replaces the blocks from `from` to the head with a competing fork. The head moves with the clock, so
   * a caller that wants a given first block names it: a depth computed from its own reading of the head
   * would start one block later when a block boundary passes between the two readings.
   */
  reorgFrom(first: number): { from: number; to: number } {
    const head = this.head();
    const from = Math.max(SIM_GENESIS_BLOCK, first);
    for (let n = from; n <= head; n++) this.forks.set(n, (this.forks.get(n) ?? 0) + 1);
    this.reorgs++;
    return { from, to: head };
  }
}

/**
 * What the NegRiskAdapter itself says about each neg-risk market: its fee (MarketPrepared) and its
 * questions in order (QuestionPrepared), each with where on the chain it was prepared. Conversions are
 * priced from this, not from the catalog: `convertPositions` reads the market's question count when it
 * runs, so a conversion's questions are exactly those prepared before it (one prepared later is not
 * part of it), and Gamma may list an event's questions late or only some of them.
 *
 * Ids follow the adapter (NegRiskIdLib, CTHelpers): question id = market id + index (the low byte);
 * condition id = keccak256(abi.encodePacked(adapter, question id, 2)), the adapter being the oracle of
 * every neg-risk condition. Position ids need the CTF's collection-id curve arithmetic: the catalog
 * names the tokens of each condition.
 *
 * Kept in a file beside the chain checkpoint (`chain-neg-risk.json`), written before the checkpoint
 * moves past the blocks it was learnt from, so a restart knows every market its checkpoint has read
 * (a crash in between reads those blocks again; learning is idempotent). `npm run backfill` keeps the
 * same file: on save, entries the file has and this process does not (another writer's) are kept. A
 * reorg forgets what the orphaned blocks prepared. A market prepared before the first block read is
 * not known here: its conversions are priced from their own transaction (conversion-evidence.ts).
 */
import { encodePacked, keccak256 } from 'viem';
import { CheckpointFile } from '../ingest/checkpoint.js';

export interface ChainPoint {
  block: number;
  logIndex: number;
  blockHash: string;
}

export interface PreparedQuestion {
  index: number;
  questionId: string;
  conditionId: string;
  at: ChainPoint;
}

interface PreparedMarket {
  oracle: string;
  feeBips: number;
  at: ChainPoint;
}

/** A market as a conversion at some point of the chain saw it. */
export interface MarketAt {
  feeBips: number;
  /** Questions 0..count - 1, prepared before that point. */
  questions: PreparedQuestion[];
}

type Point = [block: number, logIndex: number, blockHash: string];

interface StoredBook {
  version: 1;
  /** market id -> [oracle, fee bips, where prepared] */
  markets: Record<string, [string, number, Point]>;
  /** market id -> [index, where prepared][] */
  questions: Record<string, Array<[number, ...Point]>>;
}

const EMPTY: StoredBook = { version: 1, markets: {}, questions: {} };

/** A log's place on the chain, as settlement records carry it. */
export interface LogPlace {
  blockNumber: number;
  logIndex: number;
}

const before = (a: ChainPoint, b: LogPlace) => a.block < b.blockNumber || (a.block === b.blockNumber && a.logIndex < b.logIndex);

/** The CTF condition of a neg-risk question: the adapter is its oracle, and every question is binary. */
export function negRiskConditionId(adapter: string, questionId: string): string {
  return keccak256(encodePacked(['address', 'bytes32', 'uint256'], [adapter as `0x${string}`, questionId as `0x${string}`, 2n]));
}

/** NegRiskIdLib.getQuestionId: the market id with the question's index in the low byte. */
export function negRiskQuestionId(marketId: string, index: number): string {
  return `0x${(BigInt(marketId) + BigInt(index)).toString(16).padStart(64, '0')}`;
}

export class NegRiskBook {
  private readonly markets = new Map<string, PreparedMarket>();
  /** Per market, by index. */
  private readonly questions = new Map<string, Map<number, PreparedQuestion>>();
  /** Entries this process forgot (a reorg): a save does not take them back from the file. */
  private readonly forgotten = new Set<string>();
  private readonly file: CheckpointFile<StoredBook> | null;
  private dirty = false;

  constructor(
    readonly adapter: string,
    file: string | null = null,
  ) {
    this.file = file ? new CheckpointFile<StoredBook>(file, EMPTY) : null;
    if (this.file) this.merge(this.file.read());
  }

  get size(): { markets: number; questions: number } {
    let questions = 0;
    for (const list of this.questions.values()) questions += list.size;
    return { markets: this.markets.size, questions };
  }

  marketPrepared(marketId: string, oracle: string, feeBips: number, at: ChainPoint): void {
    const known = this.markets.get(marketId);
    if (known && known.at.blockHash === at.blockHash && known.at.logIndex === at.logIndex) return;
    this.markets.set(marketId, { oracle, feeBips, at });
    this.forgotten.delete(`m:${marketId}`);
    this.dirty = true;
  }

  questionPrepared(marketId: string, index: number, at: ChainPoint): void {
    const list = this.questions.get(marketId) ?? new Map<number, PreparedQuestion>();
    const known = list.get(index);
    if (known && known.at.blockHash === at.blockHash && known.at.logIndex === at.logIndex) return;
    const questionId = negRiskQuestionId(marketId, index);
    list.set(index, { index, questionId, conditionId: negRiskConditionId(this.adapter, questionId), at });
    this.questions.set(marketId, list);
    this.forgotten.delete(`q:${marketId}:${index}`);
    this.dirty = true;
  }

  /**
   * The market as the adapter had it just before `at`: its fee and questions 0..n - 1. Null while the
   * chain has not told: MarketPrepared not read (prepared before the first block read), or a question
   * index missing below a later one (a block range not read).
   */
  at(marketId: string, at: LogPlace): MarketAt | null {
    const market = this.markets.get(marketId);
    if (!market || !before(market.at, at)) return null;
    const prepared = [...(this.questions.get(marketId)?.values() ?? [])].filter((q) => before(q.at, at)).sort((a, b) => a.index - b.index);
    if (prepared.some((q, i) => q.index !== i)) return null;
    return { feeBips: market.feeBips, questions: prepared };
  }

  /** The market's fee (MarketPrepared: fixed for the market's life), null when its preparation was not read. */
  feeBips(marketId: string): number | null {
    return this.markets.get(marketId)?.feeBips ?? null;
  }

  /** A reorg rewound the reader to `block`: what later blocks prepared is read again. */
  dropAfter(block: number): void {
    this.forget((at) => at.block > block);
  }

  /** A reorg orphaned these blocks. */
  dropBlocks(hashes: ReadonlySet<string>): void {
    this.forget((at) => hashes.has(at.blockHash));
  }

  private forget(orphaned: (at: ChainPoint) => boolean): void {
    for (const [id, market] of this.markets) {
      if (!orphaned(market.at)) continue;
      this.markets.delete(id);
      this.forgotten.add(`m:${id}`);
      this.dirty = true;
    }
    for (const [id, list] of this.questions) {
      for (const [index, q] of list) {
        if (!orphaned(q.at)) continue;
        list.delete(index);
        this.forgotten.add(`q:${id}:${index}`);
        this.dirty = true;
      }
    }
  }

  /** Writes the file when something changed (before the chain checkpoint that reads past it). */
  save(): void {
    if (!this.file || !this.dirty) return;
    this.merge(this.file.read());
    const stored: StoredBook = { version: 1, markets: {}, questions: {} };
    for (const [id, m] of this.markets) stored.markets[id] = [m.oracle, m.feeBips, [m.at.block, m.at.logIndex, m.at.blockHash]];
    for (const [id, list] of this.questions)
      stored.questions[id] = [...list.values()].map((q) => [q.index, q.at.block, q.at.logIndex, q.at.blockHash]);
    this.file.write(stored);
    this.dirty = false;
  }

  /** Adds what `stored` has and this process neither knows nor forgot. */
  private merge(stored: StoredBook): void {
    const point = ([block, logIndex, blockHash]: Point): ChainPoint => ({ block, logIndex, blockHash });
    for (const [id, [oracle, feeBips, at]] of Object.entries(stored.markets)) {
      if (!this.markets.has(id) && !this.forgotten.has(`m:${id}`)) this.markets.set(id, { oracle, feeBips, at: point(at) });
    }
    for (const [id, list] of Object.entries(stored.questions)) {
      for (const [index, ...at] of list) {
        if (this.questions.get(id)?.has(index) || this.forgotten.has(`q:${id}:${index}`)) continue;
        const questionId = negRiskQuestionId(id, index);
        const known = this.questions.get(id) ?? new Map<number, PreparedQuestion>();
        known.set(index, { index, questionId, conditionId: negRiskConditionId(this.adapter, questionId), at: point(at) });
        this.questions.set(id, known);
      }
    }
  }
}

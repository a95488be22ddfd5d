/**
 * `npm run import`: settlement events from raw Polygon log files (log-files.ts) through the chain
 * source's own decoder and gate into the event log, with the ids the chain source gives them
 * (`<chain id>:<tx hash>:<log index>`, and the log's block hash), so importing a file twice, or a file
 * of blocks the RPC already delivered, adds no row: the sink drops what it has.
 *
 * Per batch of whole blocks (at least `batchLogs` logs; a block is never split, so a transaction's logs
 * stay together): check each row (a malformed one is dead-lettered with its file and row, and counted),
 * take block times and hashes from the logs' own columns, else a blocks file, else the RPC, decode
 * (interpretLogs), price conversions whose fee the source does not know from their own transaction's
 * logs (the file has them: the reader brings conversion transactions whole), name collateral-adapter
 * users from the transaction's CTF transfers, admit through the settlement gate (held records wait for
 * the catalog; learnt from Gamma when a lookup is given) and publish, as range-reader.ts and
 * follower.ts do for a block range read over RPC.
 *
 * Unlike the follower, an import has no head to wait at: a record whose market the catalog still does
 * not know when the import ends (or when more than `maxPending` wait) is decided as at the hold limit
 * (settlement-gate.ts): published with the catalog's questions (a conversion) or dead-lettered with the
 * reason. An import states no coverage (no watermarks): the files may have holes.
 */
import type { DeadLetter, Source } from '../events/types.js';
import type { EventPublisher } from '../events/publisher.js';
import type { ChainBlock, ChainLog, ChainReader } from '../ports/chain-reader.js';
import { TOPIC0 } from './abis.js';
import type { ChainCatalog } from './catalog.js';
import type { CatalogLookup } from './catalog-lookup.js';
import type { ContractBook } from './contract-book.js';
import { amountOutFromReceipt } from './conversion-evidence.js';
import type { EventContext } from './ledger-events.js';
import { type BlocksFile, describeFile, type LogsFile, listDataFiles, type RawLogRow, streamLogs } from './log-files.js';
import type { NegRiskBook } from './neg-risk-book.js';
import { type Released, SettlementGate } from './settlement-gate.js';
import { attributeAdapterActions, interpretLogs } from './settlement-records.js';
import type { Session } from 'chdb';

export interface ImportOptions {
  /** Files and directories, as given. */
  paths: readonly string[];
  session: Session;
  book: ContractBook;
  catalog: ChainCatalog;
  lookup: CatalogLookup | null;
  negRisk: NegRiskBook;
  publisher: EventPublisher;
  source: Source;
  chainId: number;
  holdMaxMs: number;
  /** Block headers for logs whose files have no time or hash (null: no RPC configured). */
  headers: ChainReader | null;
  /** Where the headers come from when the RPC gives them, for the messages (its host). */
  headersName?: string;
  out: { isTTY?: boolean; write(text: string): unknown };
  batchLogs?: number;
  maxPending?: number;
  clock?: () => number;
}

export interface ImportSummary {
  files: number;
  blocks_files: number;
  /** Rows of the logs files, every contract's. */
  rows: number;
  /** Rows the reader kept: the configured contracts' settlement topics and the conversion transactions' other logs. */
  logs: number;
  ledger_events: number;
  resolutions: number;
  dead_letters: number;
  /** Rows that are not a well-formed log (among dead_letters). */
  malformed_rows: number;
  /** Records still waiting for the catalog at the end, decided as at the hold limit (published or dead-lettered). */
  decided_at_end: number;
  block_headers_from: string[];
  /** Of elapsed_ms, the time spent waiting for the engine's next chunk (reading, filtering, sorting the files). */
  reading_ms: number;
  elapsed_ms: number;
  logs_per_second: number;
}

export class ImportUsageError extends Error {
  override readonly name = 'ImportUsageError';
}

const DEFAULT_BATCH_LOGS = 20_000;
const DEFAULT_MAX_PENDING = 50_000;
const HASH = /^0x[0-9a-f]{64}$/;
const ADDRESS = /^0x[0-9a-f]{40}$/;
const DATA = /^0x(?:[0-9a-f]{2})*$/;
const UINT = /^\d+$/;

/** A row's block time in ms: unix seconds (cryo, polygon-etl) or a date (BigQuery's `2021-01-01 00:00:00 UTC`). */
function timeMs(value: string): number | null {
  if (value === '') return null;
  if (UINT.test(value)) return Number(value) * 1000;
  const ms = Date.parse(value.replace(' UTC', 'Z').replace(' ', 'T'));
  return Number.isFinite(ms) ? ms : null;
}

interface Pending {
  log: ChainLog;
  /** One of the configured contracts' settlement logs (else another log of a conversion's transaction). */
  settlement: boolean;
  timeMs: number | null;
  file: string;
  row: RawLogRow;
}

export async function importLogFiles(options: ImportOptions): Promise<ImportSummary> {
  const clock = options.clock ?? Date.now;
  const startedAt = clock();
  const { book, publisher } = options;
  const described = options.paths.flatMap(listDataFiles).map((file) => describeFile(options.session, file));
  const logsFiles = described
    .filter((f): f is LogsFile => f.kind === 'logs' && f.rows > 0)
    .sort((a, b) => (a.firstBlock ?? 0) - (b.firstBlock ?? 0));
  const blocksFiles = described.filter((f): f is BlocksFile => f.kind === 'blocks');
  if (logsFiles.length === 0) throw new ImportUsageError(`no logs in ${options.paths.join(', ')}`);
  for (let i = 1; i < logsFiles.length; i++) {
    const [a, b] = [logsFiles[i - 1]!, logsFiles[i]!];
    // Chain order across files is the files' order: overlapping files would interleave.
    if ((b.firstBlock ?? 0) <= (a.lastBlock ?? 0))
      throw new ImportUsageError(
        `${a.path} (blocks ${a.firstBlock}..${a.lastBlock}) and ${b.path} (blocks ${b.firstBlock}..${b.lastBlock}) overlap; import them in separate runs`,
      );
  }
  const headersFrom = new Set<string>();
  for (const file of logsFiles) {
    const own = file.columns.has('block_hash') && file.columns.has('block_timestamp');
    const fromBlocks = blocksFiles.some(
      (b) => (b.firstBlock ?? Number.POSITIVE_INFINITY) <= (file.lastBlock ?? 0) && (b.lastBlock ?? -1) >= (file.firstBlock ?? 0),
    );
    const name = own
      ? 'the logs files (block_hash, block_timestamp)'
      : fromBlocks
        ? 'blocks files'
        : options.headers
          ? `the RPC (${options.headersName ?? 'POLYGON_RPC_URL'})`
          : null;
    if (!name)
      throw new ImportUsageError(
        `${file.path} has no block times or hashes (cryo's logs have none): add the cryo blocks files of blocks ${file.firstBlock}..${file.lastBlock} to the paths, or set POLYGON_RPC_URL`,
      );
    headersFrom.add(name);
  }
  options.out.write(
    `import: ${logsFiles.length} logs files (${logsFiles.reduce((n, f) => n + f.rows, 0).toLocaleString('en')} rows), ${blocksFiles.length} blocks files; block times and hashes from ${[...headersFrom].join(' and ')}\n`,
  );

  const query = book.logQuery(Number.MAX_SAFE_INTEGER);
  const settlementTopics = new Set(query.topics);
  const settlementAddresses = new Set(query.addresses);
  let gate = new SettlementGate(options.catalog, options.negRisk, options.holdMaxMs);
  const summary: ImportSummary = {
    files: logsFiles.length,
    blocks_files: blocksFiles.length,
    rows: 0,
    logs: 0,
    ledger_events: 0,
    resolutions: 0,
    dead_letters: 0,
    malformed_rows: 0,
    decided_at_end: 0,
    block_headers_from: [...headersFrom],
    reading_ms: 0,
    elapsed_ms: 0,
    logs_per_second: 0,
  };
  const context = (): EventContext => ({
    chainId: options.chainId,
    source: options.source,
    nowMs: clock(),
    negRiskAdapter: book.negRiskAdapter,
  });
  const deadLetter = (origin: string, reason: string, raw: unknown): DeadLetter => ({
    stage: 'ingest',
    source: options.source,
    origin,
    reason,
    raw: JSON.stringify(raw, (_key, value) => (typeof value === 'bigint' ? value.toString() : value)),
    at_ms: clock(),
  });
  const publishReleased = async (released: Released): Promise<void> => {
    const rejected = released.rejected.map(({ record, reason }) => deadLetter('polygon/settlement', reason, record));
    summary.dead_letters += await publisher.deadLetter(rejected);
    summary.ledger_events += await publisher.publish('chainLedger', released.ledger);
    summary.resolutions += await publisher.publish('chainResolutions', released.resolutions);
  };
  /** Held records decided now, as at the hold limit. */
  const decideHeld = async (): Promise<void> => {
    if (gate.pending.length === 0) return;
    summary.decided_at_end += gate.pending.length;
    const atLimit = new SettlementGate(options.catalog, options.negRisk, 0, gate.pending);
    await publishReleased(atLimit.admit([], context()));
    gate = new SettlementGate(options.catalog, options.negRisk, options.holdMaxMs, atLimit.pending);
  };

  const progress = new ImportProgress(options.out, clock, summary);
  const rows: Pending[] = [];
  const processBatch = async (): Promise<void> => {
    if (rows.length === 0) return;
    const batch = rows.splice(0, rows.length);
    const malformed: DeadLetter[] = [];
    // Headers the files did not give: from the RPC, for the whole batch at once.
    const missing = [...new Set(batch.filter((p) => p.timeMs === null || p.log.blockHash === '').map((p) => p.log.blockNumber))];
    const fetched = missing.length > 0 && options.headers ? await options.headers.blocks(missing) : new Map<bigint, ChainBlock>();
    const kept: Pending[] = [];
    for (const p of batch) {
      const header = fetched.get(p.log.blockNumber);
      if (header) {
        if (p.log.blockHash !== '' && p.log.blockHash !== header.hash) {
          malformed.push(
            deadLetter(
              'polygon/log-file',
              `block ${p.log.blockNumber} is ${header.hash} on the node, the file's log is of ${p.log.blockHash} (an orphaned block)`,
              {
                file: p.file,
                row: p.row,
              },
            ),
          );
          continue;
        }
        p.log.blockHash = header.hash;
        p.timeMs ??= header.timestamp * 1000;
      }
      if (p.timeMs === null || p.log.blockHash === '') {
        malformed.push(
          deadLetter('polygon/log-file', `no block time or hash for block ${p.log.blockNumber}`, { file: p.file, row: p.row }),
        );
        continue;
      }
      kept.push(p);
    }
    summary.malformed_rows += malformed.length;
    const times = new Map(kept.map((p) => [Number(p.log.blockNumber), p.timeMs as number]));
    const settlement = kept.filter((p) => p.settlement).map((p) => p.log);
    const byTransaction = new Map<string, ChainLog[]>();
    for (const { log } of kept) byTransaction.set(log.transactionHash, [...(byTransaction.get(log.transactionHash) ?? []), log]);
    const interpreted = interpretLogs(settlement, times, book);
    const preparedHere = new Set(
      interpreted.records.flatMap((r) =>
        r.kind === 'prepared' && r.prepared.type === 'market_prepared' ? [r.prepared.negRiskMarketId] : [],
      ),
    );
    // As range-reader.ts with a receipt: the transaction's logs are in the file (the reader keeps conversion transactions whole).
    const withFees = interpreted.records.map((r) => {
      if (r.kind !== 'conversion' || !r.evidence) return r;
      if (preparedHere.has(r.conversion.negRiskMarketId) || options.negRisk.feeBips(r.conversion.negRiskMarketId) !== null) return r;
      const out = amountOutFromReceipt(r, byTransaction.get(r.at.txHash) ?? [], book);
      return out === null ? r : { ...r, evidence: { ...r.evidence, amountOutMicro: out } };
    });
    const receipts = new Map(interpreted.receiptsNeeded.map((hash) => [hash, byTransaction.get(hash) ?? []]));
    const attributed = attributeAdapterActions(withFees, receipts, book);
    const rejected = [
      ...malformed,
      ...interpreted.rejected.map(({ log, reason }) => deadLetter('polygon/log-file', reason, log)),
      ...attributed.rejected.map(({ record, reason }) => deadLetter('polygon/log-file', reason, record)),
    ];
    summary.dead_letters += await publisher.deadLetter(rejected);
    await publishReleased(gate.admit(attributed.records, context()));
    if (options.lookup && gate.pending.length > 0) {
      const unknown = gate.unknownIds();
      if ((await options.lookup.learn(unknown)) > 0) await publishReleased(gate.admit([], context()));
    }
    if (gate.pending.length > (options.maxPending ?? DEFAULT_MAX_PENDING)) await decideHeld();
    options.negRisk.save();
    progress.update();
  };

  const batchLogs = options.batchLogs ?? DEFAULT_BATCH_LOGS;
  const selection = {
    addresses: query.addresses,
    topics: query.topics,
    wholeTransactions: { address: book.negRiskAdapter, topic0: TOPIC0.negRiskPositionsConverted },
  };
  for (const file of logsFiles) {
    progress.file = file.path;
    const chunks = streamLogs(options.session, file, blocksFiles, selection);
    for (;;) {
      const readStart = clock();
      const next = await chunks.next();
      summary.reading_ms += clock() - readStart;
      if (next.done) break;
      for (const row of next.value) {
        const problem = rowProblem(row, options.chainId);
        if (problem) {
          summary.malformed_rows += 1;
          summary.dead_letters += await publisher.deadLetter([deadLetter('polygon/log-file', problem, { file: file.path, row })]);
          continue;
        }
        summary.logs += 1;
        const blockNumber = BigInt(row.block_number);
        // A batch ends between blocks, never inside one.
        if (rows.length >= batchLogs && rows[rows.length - 1]!.log.blockNumber !== blockNumber) await processBatch();
        rows.push({
          log: {
            address: row.address,
            topics: row.topics,
            data: row.data,
            blockNumber,
            blockHash: row.block_hash || row.header_hash,
            transactionHash: row.tx_hash,
            logIndex: Number(row.log_index),
            removed: false,
          },
          settlement: settlementAddresses.has(row.address) && settlementTopics.has(row.topics[0] ?? ''),
          timeMs: timeMs(row.block_time) ?? timeMs(row.header_time),
          file: file.path,
          row,
        });
      }
    }
    await processBatch();
    summary.rows += file.rows;
    progress.fileDone();
  }
  await decideHeld();
  options.negRisk.save();
  summary.elapsed_ms = clock() - startedAt;
  summary.logs_per_second = Math.round((summary.logs * 1000) / Math.max(1, summary.elapsed_ms));
  progress.finish();
  return summary;
}

/** Why a row is not a log this import can place, or null. */
function rowProblem(row: RawLogRow, chainId: number): string | null {
  if (!UINT.test(row.block_number)) return `block_number ${JSON.stringify(row.block_number)} is not a block number`;
  if (!UINT.test(row.log_index)) return `log_index ${JSON.stringify(row.log_index)} is not a log index`;
  if (!HASH.test(row.tx_hash)) return `transaction_hash ${JSON.stringify(row.tx_hash)} is not a 32-byte hash`;
  if (!ADDRESS.test(row.address)) return `address ${JSON.stringify(row.address)} is not an address`;
  // No topic is a log (an anonymous event) too: only the other logs of a conversion's transaction can be one.
  if (row.topics.length > 4 || !row.topics.every((t) => HASH.test(t)))
    return `topics ${JSON.stringify(row.topics)} are not up to 4 32-byte words`;
  if (!DATA.test(row.data)) return `data is not 0x hex of whole bytes`;
  if (row.chain_id !== '' && row.chain_id !== String(chainId)) return `chain_id ${row.chain_id} is not ${chainId}`;
  if (row.block_hash !== '' && !HASH.test(row.block_hash)) return `block_hash ${JSON.stringify(row.block_hash)} is not a 32-byte hash`;
  if (row.block_time !== '' && timeMs(row.block_time) === null) return `block_timestamp ${JSON.stringify(row.block_time)} is not a time`;
  return null;
}

/** Logs/s and files done: a redrawn line on a terminal, a plain line every 5 s otherwise (stderr). */
class ImportProgress {
  file = '';
  private filesDone = 0;
  private lastDraw = 0;
  private readonly startedAt: number;

  constructor(
    private readonly out: ImportOptions['out'],
    private readonly clock: () => number,
    private readonly summary: ImportSummary,
  ) {
    this.startedAt = clock();
  }

  private line(): string {
    const s = this.summary;
    const rate = Math.round((s.logs * 1000) / Math.max(1, this.clock() - this.startedAt));
    return `files ${this.filesDone}/${s.files} · ${s.logs.toLocaleString('en')} logs · ${rate.toLocaleString('en')} logs/s · ${s.ledger_events.toLocaleString('en')} events · ${s.dead_letters.toLocaleString('en')} dead-lettered`;
  }

  update(): void {
    const now = this.clock();
    if (now - this.lastDraw < (this.out.isTTY ? 100 : 5_000)) return;
    this.lastDraw = now;
    this.out.write(this.out.isTTY ? `\r\x1b[2K${this.line()}` : `import: ${this.line()}\n`);
  }

  fileDone(): void {
    this.filesDone += 1;
    if (this.out.isTTY) this.out.write('\r\x1b[2K');
    this.out.write(`import: done ${this.file}: ${this.line()}\n`);
  }

  finish(): void {
    this.out.write(`import: complete in ${Math.round((this.clock() - this.startedAt) / 100) / 10} s: ${this.line()}\n`);
  }
}

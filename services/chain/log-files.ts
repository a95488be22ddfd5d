/**
 * Raw Polygon logs from files, read by chDB's own Parquet and CSV readers (the `file()` table function):
 * paradigmxyz/cryo's `logs` dataset (block_number, [block_hash], transaction_index, log_index,
 * transaction_hash, address (older releases: contract_address), topic0..topic3, data, [chain_id];
 * binary columns in Parquet, 0x-hex with `--hex` and in CSV) and blockchain-etl's `logs.csv`
 * (log_index, transaction_hash, transaction_index, address, data, topics (comma-joined),
 * block_timestamp, block_number, block_hash). Block headers come from cryo's `blocks` dataset
 * (block_number, block_hash, timestamp) or blockchain-etl's `blocks.csv` (number, hash, timestamp).
 *
 * Every file is told apart by its columns, not its name. The engine filters each file to the wanted
 * contracts and topics (plus every log of a transaction that converts neg-risk positions: its
 * collateral transfers price the conversion's fee, conversion-evidence.ts), joins block headers, sorts
 * by (block, log index) with a bounded sort buffer (spilling to disk beyond it), and streams the result
 * in chunks: nothing holds a whole file. Values come out as text (numbers in decimal, bytes as
 * lower-case 0x hex, missing ones as ''); checking them is the caller's (log-import.ts), so a malformed
 * row is a dead letter, never a failed query.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Session } from 'chdb';

type LogFileFormat = 'Parquet' | 'CSVWithNames';

interface DataFile {
  path: string;
  format: LogFileFormat;
  columns: ReadonlySet<string>;
  /** Byte columns hold raw bytes (cryo Parquet), not 0x text. */
  binary: boolean;
  rows: number;
  firstBlock: number | null;
  lastBlock: number | null;
}

export interface LogsFile extends DataFile {
  kind: 'logs';
  layout: 'cryo' | 'blockchain-etl';
}

export interface BlocksFile extends DataFile {
  kind: 'blocks';
}

/** One log as the files have it, every field text ('' when the file has none). */
export interface RawLogRow {
  block_number: string;
  log_index: string;
  tx_hash: string;
  address: string;
  topics: string[];
  data: string;
  chain_id: string;
  /** From the log's own columns (blockchain-etl; cryo with --columns block_hash). */
  block_hash: string;
  block_time: string;
  /** From a blocks file. */
  header_hash: string;
  header_time: string;
}

export interface LogSelection {
  addresses: readonly string[];
  topics: readonly string[];
  /** Transactions with a log of this address and topic0 come whole. */
  wholeTransactions: { address: string; topic0: string };
}

const FILE_EXTENSIONS = /\.(parquet|csv|csv\.gz)$/i;
/** The sort buffer before it spills to disk, and the engine's threads (the machine runs the sink too). */
const READ_SETTINGS = `max_threads = 2, max_bytes_before_external_sort = 268435456, max_bytes_before_external_group_by = 268435456, join_algorithm = 'auto', max_bytes_in_join = 268435456, input_format_csv_use_best_effort_in_schema_inference = 0`;

export class UnreadableFileError extends Error {
  override readonly name = 'UnreadableFileError';
}

/** The files a path names: itself, or a directory's Parquet and CSV files (not its subdirectories), by name. */
export function listDataFiles(target: string): string[] {
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return [path.resolve(target)];
  return fs
    .readdirSync(target)
    .filter((name) => FILE_EXTENSIONS.test(name))
    .sort()
    .map((name) => path.resolve(target, name));
}

export const literal = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

const formatOf = (file: string): LogFileFormat => (/\.parquet$/i.test(file) ? 'Parquet' : 'CSVWithNames');

const source = (file: Pick<DataFile, 'path' | 'format'>) => `file(${literal(file.path)}, ${file.format})`;

/** A byte column as 0x hex text. */
function hex(file: Pick<DataFile, 'binary'>, column: string): string {
  return file.binary
    ? `if(isNull(${column}), '', concat('0x', lower(hex(assumeNotNull(${column})))))`
    : `lower(trimBoth(ifNull(toString(${column}), '')))`;
}

const text = (column: string) => `trimBoth(ifNull(toString(${column}), ''))`;

function rowsOf<T>(session: Session, sql: string): T[] {
  return session
    .query(sql, 'JSONEachRow')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as T);
}

/** Reads a file's columns, size and block span; refuses what is neither a logs nor a blocks file. */
export function describeFile(session: Session, file: string): LogsFile | BlocksFile {
  const format = formatOf(file);
  const base = { path: file, format };
  let columns: Set<string>;
  try {
    columns = new Set(
      rowsOf<{ name: string }>(session, `DESCRIBE ${source(base)} SETTINGS ${READ_SETTINGS}`).map((c) => c.name.toLowerCase()),
    );
  } catch (error) {
    throw new UnreadableFileError(`${file}: not a readable ${format} file (${(error as Error).message.split('\n')[0]})`);
  }
  const isLogs = columns.has('log_index') && columns.has('transaction_hash') && columns.has('data');
  const numberColumn = columns.has('block_number') ? 'block_number' : 'number';
  const isBlocks = !isLogs && columns.has('timestamp') && columns.has(numberColumn) && (columns.has('block_hash') || columns.has('hash'));
  if (!isLogs && !isBlocks)
    throw new UnreadableFileError(
      `${file}: neither a logs file (cryo logs or blockchain-etl logs.csv: log_index, transaction_hash, data, ...) nor a blocks file (block_number or number, block_hash or hash, timestamp); its columns: ${[...columns].join(', ')}`,
    );
  const hashColumn = isLogs ? 'transaction_hash' : columns.has('block_hash') ? 'block_hash' : 'hash';
  const [stats] = rowsOf<{ rows: string; first: string | null; last: string | null; hash_length: string | null }>(
    session,
    `SELECT toString(count()) AS rows, toString(min(n)) AS first, toString(max(n)) AS last, toString(any(l)) AS hash_length
       FROM (SELECT toUInt64OrNull(${text(numberColumn)}) AS n, length(${hashColumn}) AS l FROM ${source(base)})
     SETTINGS ${READ_SETTINGS}`,
  );
  const described: DataFile = {
    path: file,
    format,
    columns,
    // cryo writes 32-byte hashes as 32 bytes in Parquet, and as 66 characters of text with --hex.
    binary: format === 'Parquet' && stats?.hash_length === '32',
    rows: Number(stats?.rows ?? 0),
    firstBlock: stats?.first ? Number(stats.first) : null,
    lastBlock: stats?.last ? Number(stats.last) : null,
  };
  if (isBlocks) return { ...described, kind: 'blocks' };
  return { ...described, kind: 'logs', layout: columns.has('topics') ? 'blockchain-etl' : 'cryo' };
}

/** The columns of a logs file as RawLogRow's, of the rows `where` keeps (a condition on the file's own columns). */
function normalizedLogs(file: LogsFile, where: string): string {
  const c = file.columns;
  const topics =
    file.layout === 'blockchain-etl'
      ? `arrayFilter(t -> t != '', splitByChar(',', replaceAll(lower(${text('topics')}), ' ', '')))`
      : `arrayFilter(t -> t != '', [${['topic0', 'topic1', 'topic2', 'topic3'].map((t) => (c.has(t) ? hex(file, t) : "''")).join(', ')}])`;
  return `SELECT ${text('block_number')} AS block_number,
                 ${text('log_index')} AS log_index,
                 ${hex(file, 'transaction_hash')} AS tx_hash,
                 ${hex(file, addressColumn(file))} AS address,
                 ${topics} AS topics,
                 ${hex(file, 'data')} AS data,
                 ${c.has('chain_id') ? text('chain_id') : "''"} AS chain_id,
                 ${c.has('block_hash') ? hex(file, 'block_hash') : "''"} AS block_hash,
                 ${c.has('block_timestamp') ? text('block_timestamp') : "''"} AS block_time
            FROM (SELECT * FROM ${source(file)} WHERE ${where})`;
}

function normalizedBlocks(file: BlocksFile): string {
  const number = file.columns.has('block_number') ? 'block_number' : 'number';
  const hash = file.columns.has('block_hash') ? 'block_hash' : 'hash';
  return `SELECT ${text(number)} AS number, ${hex(file, hash)} AS hash, ${text('timestamp')} AS time FROM ${source(file)}`;
}

const addressColumn = (file: LogsFile) => (file.columns.has('address') ? 'address' : 'contract_address');

/**
 * `column IN values` on the file's own column (raw bytes against raw bytes), so the engine drops the
 * other contracts' rows before it converts anything: in a whole-chain dump they are nearly all.
 */
function rawIn(file: LogsFile, column: string, values: readonly string[]): string {
  if (file.binary) return `${column} IN (${values.map((v) => `unhex(${literal(v.slice(2))})`).join(', ')})`;
  return `lower(trimBoth(ifNull(toString(${column}), ''))) IN (${values.map(literal).join(', ')})`;
}

/** The log's first topic is one of `values`. */
function topic0In(file: LogsFile, values: readonly string[]): string {
  if (file.layout === 'blockchain-etl')
    return `lower(substring(trimBoth(ifNull(toString(topics), '')), 1, 66)) IN (${values.map(literal).join(', ')})`;
  return rawIn(file, 'topic0', values);
}

/** The statement that streams a logs file's wanted rows in chain order, with headers from `blocks`. */
function selectLogs(file: LogsFile, blocks: readonly BlocksFile[], selection: LogSelection): string {
  const address = addressColumn(file);
  const whole = selection.wholeTransactions;
  const wanted = normalizedLogs(
    file,
    `(${rawIn(file, address, selection.addresses)} AND ${topic0In(file, selection.topics)})
      OR transaction_hash IN (SELECT transaction_hash FROM ${source(file)}
                               WHERE ${rawIn(file, address, [whole.address])} AND ${topic0In(file, [whole.topic0])})`,
  );
  // Only the blocks files whose span meets this file's; only the blocks that have a wanted log.
  const overlapping = blocks.filter(
    (b) =>
      file.firstBlock !== null &&
      file.lastBlock !== null &&
      b.firstBlock !== null &&
      b.lastBlock !== null &&
      b.firstBlock <= file.lastBlock &&
      b.lastBlock >= file.firstBlock,
  );
  const order = 'ORDER BY toUInt64OrZero(block_number), toUInt64OrZero(log_index)';
  if (overlapping.length === 0) return `SELECT *, '' AS header_hash, '' AS header_time FROM (${wanted}) ${order} SETTINGS ${READ_SETTINGS}`;
  const headers = overlapping.map(normalizedBlocks).join(' UNION ALL ');
  return `SELECT l.*, h.hash AS header_hash, h.time AS header_time
            FROM (${wanted}) AS l
            LEFT JOIN (SELECT number, any(hash) AS hash, any(time) AS time FROM (${headers})
                        WHERE number IN (SELECT block_number FROM (${wanted})) GROUP BY number) AS h
              ON l.block_number = h.number
          ${order} SETTINGS ${READ_SETTINGS}`;
}

/** The wanted rows of a logs file in chain order, a chunk at a time (the engine's blocks). */
export async function* streamLogs(
  session: Session,
  file: LogsFile,
  blocks: readonly BlocksFile[],
  selection: LogSelection,
): AsyncGenerator<RawLogRow[]> {
  const stream = session.queryStream(selectLogs(file, blocks, selection), { format: 'JSONEachRow' });
  try {
    for await (const chunk of stream) {
      const rows = chunk.rows<RawLogRow>();
      if (rows.length > 0) yield rows;
    }
  } finally {
    if (!stream.closed) stream.cancel();
  }
}

export function openFileReader(chdbPath: string): Session {
  fs.mkdirSync(chdbPath, { recursive: true });
  return new Session(chdbPath);
}

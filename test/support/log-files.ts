/**
 * Raw log files as cryo and blockchain-etl write them, made from a node's logs (the simulator's
 * eth_getLogs) by chDB's own writers: cryo `logs` Parquet (binary byte columns, its default columns,
 * no block_hash), cryo `blocks` Parquet, and blockchain-etl `logs.csv` (0x hex, topics comma-joined,
 * block_timestamp and block_hash on every row).
 */
import fs from 'node:fs';
import type { Session } from 'chdb';
import { literal } from '../../services/chain/log-files.js';
import type { ChainBlock, ChainLog, ChainReader } from '../../services/ports/chain-reader.js';

export interface NodeDump {
  logs: ChainLog[];
  blocks: ChainBlock[];
}

/** Every log of every contract in [from, to] and the headers of the blocks with logs. */
export async function dumpNode(reader: ChainReader, from: number, to: number, step = 200): Promise<NodeDump> {
  const logs: ChainLog[] = [];
  for (let start = from; start <= to; start += step)
    logs.push(...(await reader.logs({ addresses: [], fromBlock: BigInt(start), toBlock: BigInt(Math.min(to, start + step - 1)) })));
  const headers = await reader.blocks([...new Set(logs.map((log) => log.blockNumber))]);
  return { logs, blocks: [...headers.values()].sort((a, b) => Number(a.number - b.number)) };
}

/** Each log's position among its block's transactions (cryo and blockchain-etl keep it; the import does not need it). */
function transactionIndexes(logs: readonly ChainLog[]): number[] {
  const seen = new Map<string, number>();
  const perBlock = new Map<bigint, number>();
  return logs.map((log) => {
    const key = `${log.blockNumber}:${log.transactionHash}`;
    let index = seen.get(key);
    if (index === undefined) {
      index = perBlock.get(log.blockNumber) ?? 0;
      perBlock.set(log.blockNumber, index + 1);
      seen.set(key, index);
    }
    return index;
  });
}

/** Rows as a table the engine reads (JSON lines in a file beside `target`: a query's text is bounded). */
function staged(target: string, structure: string, rows: readonly object[]): string {
  const file = `${target}.rows.jsonl`;
  fs.writeFileSync(file, rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
  return `file(${literal(file)}, JSONEachRow, ${literal(structure)})`;
}

function write(session: Session, target: string, sql: string): void {
  try {
    session.query(sql);
  } finally {
    fs.rmSync(`${target}.rows.jsonl`, { force: true });
  }
}

const unhexed = (column: string) => `unhex(substring(${column}, 3))`;

export function writeCryoLogs(session: Session, file: string, logs: readonly ChainLog[]): void {
  const tx = transactionIndexes(logs);
  const rows = logs.map((log, i) => ({
    block_number: Number(log.blockNumber),
    transaction_index: tx[i],
    log_index: log.logIndex,
    transaction_hash: log.transactionHash,
    address: log.address,
    topic0: log.topics[0] ?? null,
    topic1: log.topics[1] ?? null,
    topic2: log.topics[2] ?? null,
    topic3: log.topics[3] ?? null,
    data: log.data,
  }));
  const structure =
    'block_number UInt32, transaction_index UInt32, log_index UInt32, transaction_hash String, address String, topic0 Nullable(String), topic1 Nullable(String), topic2 Nullable(String), topic3 Nullable(String), data String, n_data_bytes UInt32, chain_id UInt64';
  write(
    session,
    file,
    `INSERT INTO FUNCTION file(${literal(file)}, Parquet, ${literal(structure)})
     SELECT block_number, transaction_index, log_index, ${unhexed('transaction_hash')}, ${unhexed('address')},
            if(isNull(topic0), NULL, ${unhexed('assumeNotNull(topic0)')}), if(isNull(topic1), NULL, ${unhexed('assumeNotNull(topic1)')}),
            if(isNull(topic2), NULL, ${unhexed('assumeNotNull(topic2)')}), if(isNull(topic3), NULL, ${unhexed('assumeNotNull(topic3)')}),
            ${unhexed('data')}, intDiv(length(data) - 2, 2), 137
       FROM ${staged(
         file,
         'block_number UInt32, transaction_index UInt32, log_index UInt32, transaction_hash String, address String, topic0 Nullable(String), topic1 Nullable(String), topic2 Nullable(String), topic3 Nullable(String), data String',
         rows,
       )}
     SETTINGS engine_file_truncate_on_insert = 1`,
  );
}

export function writeCryoBlocks(session: Session, file: string, blocks: readonly ChainBlock[]): void {
  const rows = blocks.map((b) => ({ block_number: Number(b.number), block_hash: b.hash, timestamp: b.timestamp }));
  write(
    session,
    file,
    `INSERT INTO FUNCTION file(${literal(file)}, Parquet, 'block_number UInt32, block_hash String, timestamp UInt32, chain_id UInt64')
     SELECT block_number, ${unhexed('block_hash')}, timestamp, 137 FROM ${staged(file, 'block_number UInt32, block_hash String, timestamp UInt32', rows)}
     SETTINGS engine_file_truncate_on_insert = 1`,
  );
}

/** blockchain-etl's logs.csv columns, in its order; `extra` rows are appended as given (malformed ones). */
export function writeEtlLogsCsv(
  session: Session,
  file: string,
  logs: readonly ChainLog[],
  blocks: readonly ChainBlock[],
  extra: ReadonlyArray<Record<string, string>> = [],
): void {
  const times = new Map(blocks.map((b) => [b.number, b.timestamp]));
  const tx = transactionIndexes(logs);
  const rows = [
    ...logs.map((log, i) => ({
      log_index: String(log.logIndex),
      transaction_hash: log.transactionHash,
      transaction_index: String(tx[i]),
      address: log.address,
      data: log.data,
      topics: log.topics.join(','),
      block_timestamp: String(times.get(log.blockNumber)),
      block_number: String(log.blockNumber),
      block_hash: log.blockHash,
    })),
    ...extra,
  ];
  const structure =
    'log_index String, transaction_hash String, transaction_index String, address String, data String, topics String, block_timestamp String, block_number String, block_hash String';
  write(
    session,
    file,
    `INSERT INTO FUNCTION file(${literal(file)}, CSVWithNames, ${literal(structure)})
     SELECT * FROM ${staged(file, structure, rows)}
     SETTINGS engine_file_truncate_on_insert = 1`,
  );
}

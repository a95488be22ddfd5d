/**
 * Polygon JSON-RPC (POST /rpc, single calls and batches) over the simulated chain: eth_chainId,
 * net_version, web3_clientVersion, eth_blockNumber, eth_getBlockByNumber / ByHash, eth_getLogs,
 * eth_getTransactionReceipt. Hex quantities, lower-case hex data, as Bor serves them.
 *
 * Faults, as public endpoints behave: a getLogs range wider than `rpcMaxBlockRange` blocks or with more
 * than `rpcMaxLogs` results is refused (JSON-RPC errors -32000 / -32005), and more than
 * `rpcRequestsPer10s` calls in a sliding 10 s window get HTTP 429 with Retry-After.
 */
import { Router } from 'express';
import type { ChainBlock, LogQuery, SimulatedChain } from './chain.js';

export interface RpcFaultOptions {
  rpcMaxBlockRange?: number;
  rpcMaxLogs?: number;
  rpcRequestsPer10s?: number;
}

/** The client version the simulator answers: the service labels what it reads from such a node `simulator`. */
export const SIM_CLIENT_VERSION = 'tapeline-simulator/1.0';

interface RpcCall {
  jsonrpc?: string;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const hex = (n: number | bigint) => `0x${n.toString(16)}`;
const ZERO_BLOOM = `0x${'0'.repeat(512)}`;

function quantity(value: unknown, name: string): number {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]+$/.test(value)) throw new RpcError(-32602, `invalid ${name}: ${JSON.stringify(value)}`);
  return Number.parseInt(value, 16);
}

function blockTag(chain: SimulatedChain, value: unknown, name: string): number {
  if (value === undefined || value === 'latest' || value === 'pending' || value === 'safe' || value === 'finalized') return chain.head();
  if (value === 'earliest') return 0;
  return quantity(value, name);
}

function renderBlock(block: ChainBlock, full: boolean) {
  return {
    number: hex(block.number),
    hash: block.hash,
    parentHash: block.parentHash,
    timestamp: hex(block.timestamp),
    nonce: '0x0000000000000000',
    sha3Uncles: '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
    logsBloom: ZERO_BLOOM,
    transactionsRoot: block.hash,
    stateRoot: block.hash,
    receiptsRoot: block.hash,
    miner: '0x0000000000000000000000000000000000000000',
    difficulty: '0x1',
    totalDifficulty: hex(block.number),
    extraData: '0x',
    size: hex(1000 + block.transactions.length * 500),
    gasLimit: hex(30_000_000),
    gasUsed: hex(block.transactions.length * 150_000),
    baseFeePerGas: hex(30_000_000_000),
    uncles: [],
    transactions: block.transactions.map((tx, index) =>
      full
        ? {
            hash: tx.hash,
            blockHash: block.hash,
            blockNumber: hex(block.number),
            transactionIndex: hex(index),
            from: tx.from,
            to: tx.to,
            value: '0x0',
            nonce: '0x0',
            gas: hex(500_000),
            gasPrice: hex(30_000_000_000),
            input: '0x',
            type: '0x0',
            v: '0x135',
            r: block.hash,
            s: block.hash,
          }
        : tx.hash,
    ),
  };
}

/** `address`: one or a list (any of them); absent, null or an empty list: any address (as geth's filter). */
function addressSet(value: unknown): Set<string> | null {
  if (value === undefined || value === null) return null;
  const list = Array.isArray(value) ? value : [value];
  return list.length === 0 ? null : new Set(list.map((a) => String(a).toLowerCase()));
}

/** `topics`: per position null, one topic or a list (any of them); null or an empty list is a wildcard. */
function topicFilters(value: unknown): Array<Set<string> | null> {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new RpcError(-32602, 'topics must be an array');
  if (value.length > 4) throw new RpcError(-32602, 'exceed max topics');
  return value.map((t) => {
    if (t === null) return null;
    const list = Array.isArray(t) ? t : [t];
    return list.length === 0 ? null : new Set(list.map((x) => String(x).toLowerCase()));
  });
}

export function rpcRouter(chain: SimulatedChain, faults: RpcFaultOptions = {}): Router {
  const router = Router();
  const sent: number[] = [];

  const call = (method: string, params: unknown[]): unknown => {
    switch (method) {
      case 'eth_chainId':
        return hex(chain.chainId);
      case 'net_version':
        return String(chain.chainId);
      case 'web3_clientVersion':
        return SIM_CLIENT_VERSION;
      case 'eth_blockNumber':
        return hex(chain.head());
      case 'eth_getBlockByNumber': {
        const block = chain.block(blockTag(chain, params[0], 'block number'));
        return block ? renderBlock(block, params[1] === true) : null;
      }
      case 'eth_getBlockByHash': {
        const wanted = String(params[0]).toLowerCase();
        // Hashes encode their number only through the chain; search the recent window, as a node's cache would.
        for (let n = chain.head(); n > chain.head() - 10_000 && n > 0; n--) {
          if (chain.blockHash(n) === wanted) {
            const block = chain.block(n);
            return block ? renderBlock(block, params[1] === true) : null;
          }
        }
        return null;
      }
      case 'eth_getLogs': {
        const filter = (params[0] ?? {}) as Record<string, unknown>;
        let fromBlock: number;
        let toBlock: number;
        if (filter.blockHash !== undefined) {
          const wanted = String(filter.blockHash).toLowerCase();
          const head = chain.head();
          let found = -1;
          for (let n = head; n > head - 10_000 && found < 0; n--) if (chain.blockHash(n) === wanted) found = n;
          if (found < 0) throw new RpcError(-32000, 'unknown block');
          fromBlock = toBlock = found;
        } else {
          fromBlock = blockTag(chain, filter.fromBlock, 'fromBlock');
          toBlock = blockTag(chain, filter.toBlock, 'toBlock');
        }
        if (toBlock < fromBlock) throw new RpcError(-32602, 'invalid block range params');
        if (faults.rpcMaxBlockRange !== undefined && toBlock - fromBlock + 1 > faults.rpcMaxBlockRange)
          throw new RpcError(-32000, `block range too large: maximum is ${faults.rpcMaxBlockRange} blocks`);
        const query: LogQuery = { fromBlock, toBlock, addresses: addressSet(filter.address), topics: topicFilters(filter.topics) };
        const logs = chain.logs(query);
        if (faults.rpcMaxLogs !== undefined && logs.length > faults.rpcMaxLogs)
          throw new RpcError(-32005, `query returned more than ${faults.rpcMaxLogs} results`);
        return logs.map((log) => ({
          address: log.address,
          topics: log.topics,
          data: log.data,
          blockNumber: hex(log.blockNumber),
          blockHash: log.blockHash,
          transactionHash: log.transactionHash,
          transactionIndex: hex(log.transactionIndex),
          logIndex: hex(log.logIndex),
          removed: false,
        }));
      }
      case 'eth_getTransactionReceipt': {
        const located = chain.locate(String(params[0]));
        if (!located) return null;
        const { block, transactionIndex } = located;
        const tx = block.transactions[transactionIndex] as ChainBlock['transactions'][number];
        return {
          transactionHash: tx.hash,
          transactionIndex: hex(transactionIndex),
          blockHash: block.hash,
          blockNumber: hex(block.number),
          from: tx.from,
          to: tx.to,
          cumulativeGasUsed: hex((transactionIndex + 1) * 150_000),
          gasUsed: hex(150_000),
          effectiveGasPrice: hex(30_000_000_000),
          contractAddress: null,
          logsBloom: ZERO_BLOOM,
          status: '0x1',
          type: '0x0',
          logs: tx.logs.map((log, offset) => ({
            ...log,
            blockNumber: hex(block.number),
            blockHash: block.hash,
            transactionHash: tx.hash,
            transactionIndex: hex(transactionIndex),
            logIndex: hex(tx.logIndexStart + offset),
            removed: false,
          })),
        };
      }
      default:
        throw new RpcError(-32601, `the method ${method} does not exist/is not available`);
    }
  };

  const answer = (request: RpcCall) => {
    const id = request.id ?? null;
    try {
      if (typeof request.method !== 'string') throw new RpcError(-32600, 'invalid request');
      const params = Array.isArray(request.params) ? request.params : [];
      return { jsonrpc: '2.0', id, result: call(request.method, params) };
    } catch (error) {
      const code = error instanceof RpcError ? error.code : -32603;
      return { jsonrpc: '2.0', id, error: { code, message: (error as Error).message } };
    }
  };

  router.post('/', (req, res) => {
    const body = req.body as RpcCall | RpcCall[];
    const calls = Array.isArray(body) ? body.length : 1;
    if (faults.rpcRequestsPer10s !== undefined) {
      const now = Date.now();
      while (sent.length > 0 && (sent[0] as number) <= now - 10_000) sent.shift();
      if (sent.length + calls > faults.rpcRequestsPer10s) {
        res.setHeader('Retry-After', '1');
        res.status(429).json({ jsonrpc: '2.0', id: null, error: { code: 429, message: 'Too many requests, rate limit exceeded' } });
        return;
      }
      for (let i = 0; i < calls; i++) sent.push(now);
    }
    res.json(Array.isArray(body) ? body.map(answer) : answer(body));
  });
  return router;
}

/**
 * JSON-RPC adapter of the chain-reader port, on viem over HTTP. Requests are paced by a sliding-window
 * budget (public endpoints throttle and ban), JSON-RPC batching folds concurrent block lookups into one
 * HTTP request, transport failures are retried by viem with backoff, and a provider's refusal of a
 * getLogs range becomes LogRangeTooLargeError so the caller can split the range.
 */
import { type Block, createPublicClient, erc20Abi, type Hash, type Hex, http, type Log, type PublicClient } from 'viem';
import {
  type ChainBlock,
  type ChainLog,
  type ChainReader,
  type ChainReceipt,
  type ChainTransaction,
  type LogFilter,
  LogRangeTooLargeError,
} from '../ports/chain-reader.js';
import { RateBudget } from '../shared/rate-budget.js';

export interface RpcChainReaderOptions {
  url: string;
  /** JSON-RPC requests per 10 s we allow ourselves. */
  requestsPer10s: number;
  timeoutMs: number;
  /** Calls folded into one HTTP request (some keyless providers accept no more than 3). */
  batchSize: number;
}

/**
 * Messages providers use to refuse a getLogs range (block span, result count, response size); code
 * -32005 is "limit exceeded". Rate limiting uses the same code and words on some providers, so it is
 * recognised first: a throttled range must be retried later, not split.
 */
const RANGE_REFUSED =
  /block range|range (is )?too (large|wide|big)|too many (blocks|results|logs)|more than \d+ (results|logs)|exceed(s|ed)? (the )?(max|maximum|limit)|response size|query timeout|limit exceeded/i;
const RATE_LIMITED = /rate.?limit|too many requests|requests per|compute units|capacity|throttl/i;

function errorChain(error: unknown): Array<Record<string, unknown>> {
  const chain: Array<Record<string, unknown>> = [];
  for (let e: unknown = error; e && typeof e === 'object' && chain.length < 10; e = (e as { cause?: unknown }).cause) {
    chain.push(e as Record<string, unknown>);
  }
  return chain;
}

const textOf = (e: Record<string, unknown>) => [e.details, e.message, e.shortMessage].filter((t) => typeof t === 'string').join(' ');

export function isRateLimited(error: unknown): boolean {
  return errorChain(error).some((e) => e.status === 429 || e.code === 429 || RATE_LIMITED.test(textOf(e)));
}

function isRangeRefusal(error: unknown): boolean {
  if (isRateLimited(error)) return false;
  return errorChain(error).some(
    // A timed-out getLogs is a range too heavy for the provider (keyless dRPC cuts requests at 2 s).
    (e) => e.code === -32005 || e.name === 'TimeoutError' || e.status === 413 || RANGE_REFUSED.test(textOf(e)),
  );
}

const lower = (value: string) => value.toLowerCase();

function toChainLog(log: Log): ChainLog {
  return {
    address: lower(log.address),
    topics: log.topics.map(lower),
    data: lower(log.data),
    blockNumber: log.blockNumber ?? 0n,
    blockHash: lower(log.blockHash ?? '0x'),
    transactionHash: lower(log.transactionHash ?? '0x'),
    logIndex: log.logIndex ?? 0,
    removed: log.removed ?? false,
  };
}

function toChainBlock(block: Block): ChainBlock {
  return {
    number: block.number ?? 0n,
    hash: lower(block.hash ?? '0x'),
    parentHash: lower(block.parentHash),
    timestamp: Number(block.timestamp),
  };
}

/** A connection reset or refused before any answer: worth one or two quick retries. */
function isNetworkFailure(error: unknown): boolean {
  return errorChain(error).some(
    (e) => e.status === undefined && /fetch failed|ECONNRESET|ECONNREFUSED|socket hang up|EPIPE/i.test(textOf(e)),
  );
}

/**
 * The node (or a gateway) answered, and the answer is no: a JSON-RPC error object or an HTTP 4xx.
 * Outages (no answer, 5xx, 429) are not refusals: they are retried like any other call.
 */
function isRefusal(error: unknown): boolean {
  return errorChain(error).some((e) => {
    const status = e.status;
    if (typeof status === 'number') return status >= 400 && status < 500 && status !== 408 && status !== 429;
    const code = (e as { code?: unknown }).code;
    return typeof code === 'number' && code < 0 && code !== -32603 && code !== -32005;
  });
}

async function retryNetwork<T>(call: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= attempts || !isNetworkFailure(error) || isRangeRefusal(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

export function openRpcChainReader(options: RpcChainReaderOptions): ChainReader {
  const client: PublicClient = createPublicClient({
    // No client-side block-number cache: the follower must see the head move at once.
    cacheTime: 0,
    transport: http(options.url, { batch: { batchSize: options.batchSize, wait: 0 }, timeout: options.timeoutMs, retryCount: 3 }),
  });
  const budget = new RateBudget(options.requestsPer10s);
  const paced = async <T>(call: () => Promise<T>): Promise<T> => {
    await budget.take();
    return call();
  };
  const block = async (number: bigint): Promise<ChainBlock | null> => {
    try {
      return toChainBlock(await paced(() => client.getBlock({ blockNumber: number })));
    } catch (error) {
      if ((error as { name?: string }).name === 'BlockNotFoundError') return null;
      throw error;
    }
  };
  return {
    chainId: () => paced(() => client.getChainId()),
    async clientVersion() {
      try {
        return await paced(() => client.request({ method: 'web3_clientVersion' }));
      } catch (error) {
        if (isRefusal(error)) return null;
        throw error;
      }
    },
    blockNumber: () => paced(() => client.getBlockNumber()),
    block,
    async blocks(numbers) {
      const found = await Promise.all([...new Set(numbers)].map(async (n) => [n, await block(n)] as const));
      return new Map(found.filter((entry): entry is readonly [bigint, ChainBlock] => entry[1] !== null));
    },
    async logs(filter: LogFilter) {
      try {
        const logs = await retryNetwork(() =>
          paced(() =>
            client.request(
              {
                method: 'eth_getLogs',
                params: [
                  {
                    address: filter.addresses as Hex[],
                    topics: filter.topics as Array<Hex | Hex[] | null> | undefined,
                    fromBlock: `0x${filter.fromBlock.toString(16)}`,
                    toBlock: `0x${filter.toBlock.toString(16)}`,
                  },
                ],
              },
              // viem retries -32005 and timeouts with back-off; for getLogs those mean "narrow the range",
              // which the caller does at once. A dropped connection is retried here; the caller's loop
              // retries everything else.
              { retryCount: 0 },
            ),
          ),
        );
        return (logs as unknown as Array<Record<string, unknown>>).map((raw) =>
          toChainLog({
            ...(raw as unknown as Log),
            blockNumber: raw.blockNumber ? BigInt(raw.blockNumber as string) : null,
            logIndex: raw.logIndex !== undefined && raw.logIndex !== null ? Number(raw.logIndex) : null,
          } as Log),
        );
      } catch (error) {
        if (isRangeRefusal(error))
          throw new LogRangeTooLargeError(
            `getLogs ${filter.fromBlock}..${filter.toBlock} refused: ${(error as { details?: string }).details ?? (error as Error).message.split('\n')[0]}`,
          );
        throw error;
      }
    },
    async transaction(hash): Promise<ChainTransaction | null> {
      try {
        const tx = await paced(() => client.getTransaction({ hash: hash as Hash }));
        return {
          hash: lower(tx.hash),
          from: lower(tx.from),
          to: tx.to ? lower(tx.to) : null,
          value: tx.value,
          blockNumber: tx.blockNumber ?? null,
        };
      } catch (error) {
        if ((error as { name?: string }).name === 'TransactionNotFoundError') return null;
        throw error;
      }
    },
    async receipt(hash): Promise<ChainReceipt | null> {
      try {
        const receipt = await paced(() => client.getTransactionReceipt({ hash: hash as Hash }));
        return {
          transactionHash: lower(receipt.transactionHash),
          blockNumber: receipt.blockNumber,
          blockHash: lower(receipt.blockHash),
          status: receipt.status,
          from: lower(receipt.from),
          to: receipt.to ? lower(receipt.to) : null,
          logs: receipt.logs.map(toChainLog),
        };
      } catch (error) {
        if ((error as { name?: string }).name === 'TransactionReceiptNotFoundError') return null;
        throw error;
      }
    },
    balance: (address) => paced(() => client.getBalance({ address: address as Hex })),
    erc20Balance: (token, owner) =>
      paced(() => client.readContract({ address: token as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [owner as Hex] })),
    async close() {},
  };
}

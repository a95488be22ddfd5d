/**
 * Chain reader port: what tapeline reads from an EVM chain (Polygon) over JSON-RPC - the head, blocks
 * (hash, parent, time), logs of given contracts over a block range, transactions and receipts, and
 * balances. Adapter: services/chain/rpc-chain-reader.ts (viem over HTTP). The chain source (settlement
 * events), fee payment confirmation and token-balance tiers all go through it.
 *
 * Conventions: block numbers and amounts are bigint (uint256 does not fit a double); addresses and
 * hashes are lower-case 0x strings; block time is unix seconds.
 */
export interface ChainBlock {
  number: bigint;
  hash: string;
  parentHash: string;
  timestamp: number;
}

export interface ChainLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: bigint;
  blockHash: string;
  transactionHash: string;
  logIndex: number;
  /** Set by a node that reports a log orphaned by a reorg. */
  removed: boolean;
}

export interface ChainTransaction {
  hash: string;
  from: string;
  to: string | null;
  value: bigint;
  /** null while pending. */
  blockNumber: bigint | null;
}

export interface ChainReceipt {
  transactionHash: string;
  blockNumber: bigint;
  blockHash: string;
  status: 'success' | 'reverted';
  from: string;
  to: string | null;
  logs: ChainLog[];
}

export interface LogFilter {
  addresses: string[];
  /** Topic filter by position; null = any; an array = any of these. */
  topics?: Array<string | string[] | null>;
  fromBlock: bigint;
  toBlock: bigint;
}

/** The provider refused a getLogs range (too many blocks or results); a narrower range may work. */
export class LogRangeTooLargeError extends Error {
  override readonly name = 'LogRangeTooLargeError';
}

export interface ChainReader {
  chainId(): Promise<number>;
  /**
   * The node's web3_clientVersion (the project's simulator answers `tapeline-simulator/...`), or null
   * when the node or a gateway in front of it refuses the method: it only tells the simulator apart,
   * so a provider that closes the `web3_` namespace must not keep the chain source from starting.
   */
  clientVersion(): Promise<string | null>;
  blockNumber(): Promise<bigint>;
  /** null when the node does not have the block (yet). */
  block(number: bigint): Promise<ChainBlock | null>;
  /** Several blocks in as few round trips as the provider allows. */
  blocks(numbers: readonly bigint[]): Promise<Map<bigint, ChainBlock>>;
  /**
   * Throws LogRangeTooLargeError when the provider refuses the range (too many blocks or results, a
   * response too large, or a timeout); rate limiting and outages are other errors.
   */
  logs(filter: LogFilter): Promise<ChainLog[]>;
  transaction(hash: string): Promise<ChainTransaction | null>;
  receipt(hash: string): Promise<ChainReceipt | null>;
  balance(address: string): Promise<bigint>;
  erc20Balance(token: string, owner: string): Promise<bigint>;
  close(): Promise<void>;
}

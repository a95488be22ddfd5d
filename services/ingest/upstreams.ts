/**
 * The one mapping from settings to Polymarket's HTTP upstreams and the Polygon RPC: every part and
 * command that talks to them opens its clients here, so a budget or timeout setting means the same
 * everywhere.
 */
import { openRpcChainReader } from '../chain/rpc-chain-reader.js';
import type { Config } from '../config.js';
import type { ChainReader } from '../ports/chain-reader.js';
import { UpstreamClient, type UpstreamClientOptions } from './upstream-client.js';
import type { UpstreamReachability } from './upstream-reachability.js';

type HttpUpstream = 'gamma' | 'data' | 'clob';

/** Client names (logs, metrics) of the upstreams. */
const CLIENT_NAME: Record<HttpUpstream, string> = { gamma: 'gamma', data: 'data-api', clob: 'clob' };

/**
 * A client of `upstream` with its request budget and timeout from the settings; `reachability` tells
 * a tracker of every attempt's outcome. `overrides` (budget, timeout, attempts) serve a caller whose
 * own limits bound the work instead (the API's market lookup).
 */
export function openUpstream(
  config: Pick<Config, 'upstream' | 'ingest'>,
  upstream: HttpUpstream,
  options: { reachability?: UpstreamReachability } & Partial<
    Pick<UpstreamClientOptions, 'budgetPer10s' | 'timeoutMs' | 'maxAttempts'>
  > = {},
): UpstreamClient {
  const { ingest } = config;
  const base = {
    gamma: { baseUrl: config.upstream.gammaUrl, budgetPer10s: ingest.gammaBudgetPer10s },
    data: { baseUrl: config.upstream.dataUrl, budgetPer10s: ingest.dataBudgetPer10s },
    clob: { baseUrl: config.upstream.clobUrl, budgetPer10s: ingest.clobBudgetPer10s },
  }[upstream];
  const { reachability, ...overrides } = options;
  return new UpstreamClient({
    name: CLIENT_NAME[upstream],
    ...base,
    timeoutMs: ingest.timeoutMs,
    ...overrides,
    ...(reachability ? { reachability: { tracker: reachability, upstream } } : {}),
  });
}

/** A reader of the configured Polygon RPC (callers check `chainSourceRefusal` first: the URL must be set). */
export function openChainReader(chain: Config['chain']): ChainReader {
  if (chain.rpcUrl === null) throw new Error('no chain RPC is configured (POLYGON_RPC_URL is empty)');
  return openRpcChainReader({
    url: chain.rpcUrl,
    requestsPer10s: chain.budgetPer10s,
    timeoutMs: chain.timeoutMs,
    batchSize: chain.batchSize,
  });
}

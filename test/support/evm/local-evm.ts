/**
 * An EVM chain inside the test process: Hardhat's EDR (npm `@nomicfoundation/edr`, the Rust EVM
 * behind Hardhat, loaded through N-API). EDR answers JSON-RPC through `provider.handleRequest` and
 * has no listener of its own, so a small node:http server on 127.0.0.1 hands it the requests; that
 * way the service's own viem HTTP adapter (services/chain/rpc-chain-reader.ts) is what the tests
 * exercise, unchanged. Real contracts (compiled by ./solidity.ts) are deployed and real signed
 * transactions mined; nothing about the RPC is mocked.
 *
 * EDR 0.13 is pinned: it is the last line that runs on Node 20 (0.14 needs Node 22).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import {
  type Abi,
  type Account,
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hash,
  http as httpTransport,
  hexToBytes,
  type PublicClient,
  type WalletClient,
  type Transport,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { compileContract } from './solidity.js';

const require = createRequire(import.meta.url);

interface EdrModule {
  EdrContext: new () => {
    registerProviderFactory(chainType: string, factory: unknown): Promise<void>;
    createProvider(chainType: string, config: unknown, logger: unknown, subscriptions: unknown, decoder: unknown): Promise<EdrProvider>;
  };
  ContractDecoder: new () => unknown;
  L1_CHAIN_TYPE: string;
  SHANGHAI: string;
  MineOrdering: { Priority: unknown };
  l1ProviderFactory(): unknown;
  l1GenesisState(hardfork: unknown): Array<{ address: Uint8Array; balance?: bigint }>;
  l1HardforkFromString(name: string): unknown;
}

interface EdrProvider {
  handleRequest(request: string): Promise<{ data: string | unknown }>;
}

// EDR allows one context per process ("should only be called once").
let contextPromise: Promise<InstanceType<EdrModule['EdrContext']>> | undefined;
function edrContext(edr: EdrModule) {
  contextPromise ??= (async () => {
    const context = new edr.EdrContext();
    await context.registerProviderFactory(edr.L1_CHAIN_TYPE, edr.l1ProviderFactory());
    return context;
  })();
  return contextPromise;
}

const TOKEN_ARTIFACT = () => compileContract('TestToken.sol', 'TestToken');

export interface DeployedToken {
  address: Address;
  abi: Abi;
  decimals: number;
}

export interface LocalEvm {
  url: string;
  chainId: number;
  chain: Chain;
  publicClient: PublicClient;
  /** The account that deploys contracts and mints (funded with native coin at genesis). */
  deployer: PrivateKeyAccount;
  /** A fresh key with `nativeWei` of native coin. */
  newAccount(nativeWei?: bigint): Promise<PrivateKeyAccount>;
  walletFor(account: Account): WalletClient<Transport, Chain, Account>;
  deployToken(name: string, symbol: string, decimals: number): Promise<DeployedToken>;
  mint(token: DeployedToken, to: Address, amount: bigint): Promise<Hash>;
  /** An ERC-20 transfer signed by `from`; `gas` skips estimation so a reverting transfer is still sent and mined. */
  transfer(token: DeployedToken, from: Account, to: Address, amount: bigint, options?: { gas?: bigint }): Promise<Hash>;
  sendNative(from: Account, to: Address, wei: bigint): Promise<Hash>;
  mine(blocks?: number): Promise<void>;
  /** With automine off, sent transactions stay pending until mine(). */
  setAutomine(on: boolean): Promise<void>;
  request<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Stops answering (connection refused) without losing the chain; serve() resumes on the same port. */
  pause(): Promise<void>;
  serve(): Promise<void>;
  close(): Promise<void>;
}

export async function startLocalEvm(options: { chainId?: number } = {}): Promise<LocalEvm> {
  const edr = require('@nomicfoundation/edr') as EdrModule;
  const chainId = options.chainId ?? 31_337;
  const deployer = privateKeyToAccount(generatePrivateKey());
  const context = await edrContext(edr);
  const hardfork = edr.SHANGHAI;
  const provider = await context.createProvider(
    edr.L1_CHAIN_TYPE,
    {
      allowBlocksWithSameTimestamp: false,
      allowUnlimitedContractSize: false,
      bailOnCallFailure: false,
      // A reverted transaction is mined with status 0, as on a real chain, instead of refused at submission.
      bailOnTransactionFailure: false,
      chainId: BigInt(chainId),
      coinbase: hexToBytes('0x00000000000000000000000000000000000000c0'),
      defaultTransactionGasLimit: 30_000_000n,
      genesisState: [
        ...edr.l1GenesisState(edr.l1HardforkFromString(hardfork)),
        { address: hexToBytes(deployer.address), balance: 10n ** 24n },
      ],
      hardfork,
      initialBaseFeePerGas: 1_000_000_000n,
      minGasPrice: 0n,
      mining: { autoMine: true, memPool: { order: edr.MineOrdering.Priority } },
      network: { genesisBlockGasLimit: 30_000_000n },
      networkId: BigInt(chainId),
      observability: {},
      ownedAccounts: [],
      precompileOverrides: [],
    },
    { enable: false, decodeConsoleLogInputsCallback: () => [], printLineCallback: () => {} },
    { subscriptionCallback: () => {} },
    new edr.ContractDecoder(),
  );

  let nextId = 1;
  const handle = async (call: { jsonrpc?: string; id?: unknown; method: string; params?: unknown[] }) => {
    // EDR refuses a request without `params`; viem leaves them out for methods without arguments.
    const response = await provider.handleRequest(
      JSON.stringify({ jsonrpc: '2.0', id: call.id ?? nextId++, method: call.method, params: call.params ?? [] }),
    );
    return typeof response.data === 'string' ? JSON.parse(response.data) : response.data;
  };

  const server = http.createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    try {
      const parsed = JSON.parse(body);
      const result = Array.isArray(parsed) ? await Promise.all(parsed.map(handle)) : await handle(parsed);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(result, (_key, value) => (typeof value === 'bigint' ? `0x${value.toString(16)}` : value)));
    } catch (error) {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: String(error) } }));
    }
  });
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  await listen();
  const url = `http://127.0.0.1:${port}`;
  const chain = defineChain({
    id: chainId,
    name: 'local-edr',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
  const publicClient = createPublicClient({ chain, transport: httpTransport(url), cacheTime: 0 }) as PublicClient;
  const request = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const answer = await handle({ method, params });
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
    return answer.result as T;
  };
  const walletFor = (account: Account) => createWalletClient({ account, chain, transport: httpTransport(url) });
  const waitMined = async (hash: Hash) => {
    await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    return hash;
  };
  const artifact = TOKEN_ARTIFACT();

  return {
    url,
    chainId,
    chain,
    publicClient,
    deployer,
    async newAccount(nativeWei = 10n ** 20n) {
      const account = privateKeyToAccount(generatePrivateKey());
      await request('hardhat_setBalance', [account.address, `0x${nativeWei.toString(16)}`]);
      return account;
    },
    walletFor,
    async deployToken(name, symbol, decimals) {
      const hash = await walletFor(deployer).deployContract({
        abi: artifact.abi,
        bytecode: artifact.bytecode,
        args: [name, symbol, decimals],
      });
      const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
      if (!receipt.contractAddress) throw new Error('token deployment produced no contract');
      return { address: receipt.contractAddress, abi: artifact.abi, decimals };
    },
    async mint(token, to, amount) {
      return waitMined(
        await walletFor(deployer).writeContract({ address: token.address, abi: token.abi, functionName: 'mint', args: [to, amount] }),
      );
    },
    async transfer(token, from, to, amount, transferOptions = {}) {
      const hash = await walletFor(from).writeContract({
        address: token.address,
        abi: token.abi,
        functionName: 'transfer',
        args: [to, amount],
        ...(transferOptions.gas ? { gas: transferOptions.gas } : {}),
      });
      return hash;
    },
    async sendNative(from, to, wei) {
      return walletFor(from).sendTransaction({ to, value: wei });
    },
    async mine(blocks = 1) {
      await request('hardhat_mine', [`0x${blocks.toString(16)}`]);
    },
    async setAutomine(on) {
      await request('evm_setAutomine', [on]);
    },
    request,
    async pause() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
    serve: listen,
    async close() {
      if (server.listening) {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
      }
    },
  };
}

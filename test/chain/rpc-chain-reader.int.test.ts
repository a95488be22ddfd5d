/**
 * The viem JSON-RPC adapter of the chain-reader port against a real EVM in the test process (EDR):
 * a deployed ERC-20, signed transfers, a reverted transfer, a pending transaction, logs by range.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeEventTopics, parseAbiItem, type Address } from 'viem';
import { openRpcChainReader } from '../../services/chain/rpc-chain-reader.js';
import type { ChainReader } from '../../services/ports/chain-reader.js';
import { type DeployedToken, type LocalEvm, startLocalEvm } from '../support/evm/local-evm.js';

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

let evm: LocalEvm;
let reader: ChainReader;
let token: DeployedToken;

beforeAll(async () => {
  evm = await startLocalEvm();
  reader = openRpcChainReader({ url: evm.url, requestsPer10s: 10_000, timeoutMs: 5_000, batchSize: 10 });
  token = await evm.deployToken('Test USD', 'tUSD', 6);
}, 60_000);
afterAll(async () => {
  await reader?.close();
  await evm?.close();
});

test('head, blocks, a transfer receipt with its Transfer log, balances', async () => {
  const payer = await evm.newAccount();
  const payee = (await evm.newAccount(0n)).address.toLowerCase() as Address;
  await evm.mint(token, payer.address, 5_000_000n);
  const hash = await evm.transfer(token, payer, payee, 1_250_000n);
  const receipt = await reader.receipt(hash);
  expect(receipt).toMatchObject({
    transactionHash: hash,
    status: 'success',
    from: payer.address.toLowerCase(),
    to: token.address.toLowerCase(),
  });
  const [log] = receipt!.logs;
  expect(log!.topics[0]).toBe(encodeEventTopics({ abi: [TRANSFER], eventName: 'Transfer' })[0]);
  expect(BigInt(log!.data)).toBe(1_250_000n);
  const head = await reader.blockNumber();
  expect(head).toBe(receipt!.blockNumber);
  const block = await reader.block(head);
  expect(block).toMatchObject({ number: head, hash: receipt!.blockHash });
  expect(await reader.block(head + 1000n)).toBeNull();
  const blocks = await reader.blocks([head, head - 1n, head]);
  expect([...blocks.keys()].sort()).toEqual([head - 1n, head]);
  expect(await reader.erc20Balance(token.address, payee)).toBe(1_250_000n);
  expect(await reader.balance(payee)).toBe(0n);
  const logs = await reader.logs({ addresses: [token.address], topics: [log!.topics[0]!], fromBlock: head, toBlock: head });
  expect(logs).toHaveLength(1);
  expect(logs[0]).toMatchObject({ transactionHash: hash, blockNumber: head, removed: false });
});

test('a reverted transfer has status reverted; a pending transaction has no block and no receipt', async () => {
  const payer = await evm.newAccount();
  const reverted = await evm.transfer(token, payer, evm.deployer.address, 1n, { gas: 100_000n });
  expect((await reader.receipt(reverted))?.status).toBe('reverted');

  await evm.setAutomine(false);
  try {
    const pending = await evm.sendNative(payer, evm.deployer.address, 1_000n);
    expect(await reader.transaction(pending)).toMatchObject({ hash: pending, blockNumber: null, value: 1_000n });
    expect(await reader.receipt(pending)).toBeNull();
    await evm.mine(1);
    expect((await reader.receipt(pending))?.status).toBe('success');
  } finally {
    await evm.setAutomine(true);
  }
  expect(await reader.transaction(`0x${'ab'.repeat(32)}`)).toBeNull();
});

/**
 * A gateway in front of the node that refuses the `web3_` namespace, the way some providers do:
 * with a JSON-RPC error object per call, or with an HTTP status for the whole request.
 */
async function refusingGateway(refusal: 'rpc-error' | 'http-403'): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as
      | { id: number; method: string }
      | Array<{ id: number; method: string }>;
    const calls = Array.isArray(body) ? body : [body];
    if (calls.some((call) => call.method.startsWith('web3_'))) {
      if (refusal === 'http-403') {
        response.writeHead(403, { 'content-type': 'text/plain' }).end('method not allowed by gateway');
        return;
      }
      const refused = calls.map((call) => ({
        jsonrpc: '2.0',
        id: call.id,
        error: { code: -32601, message: `the method ${call.method} does not exist/is not available` },
      }));
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(body) ? refused : refused[0]));
      return;
    }
    const upstream = await fetch(evm.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    response.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

test.each(['rpc-error', 'http-403'] as const)(
  'a gateway refusing web3_clientVersion (%s): the version is unknown (null), the chain still reads',
  async (refusal) => {
    const gateway = await refusingGateway(refusal);
    const behind = openRpcChainReader({ url: gateway.url, requestsPer10s: 10_000, timeoutMs: 5_000, batchSize: 1 });
    try {
      expect(await Promise.all([behind.chainId(), behind.clientVersion()])).toEqual([await reader.chainId(), null]);
      expect(await behind.blockNumber()).toBe(await reader.blockNumber());
    } finally {
      await behind.close();
      await gateway.close();
    }
  },
);

test('an RPC that does not answer at all is still an error, not an unknown version', async () => {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const nobody = openRpcChainReader({ url: `http://127.0.0.1:${port}`, requestsPer10s: 10_000, timeoutMs: 2_000, batchSize: 1 });
  try {
    await expect(nobody.clientVersion()).rejects.toThrow();
  } finally {
    await nobody.close();
  }
});

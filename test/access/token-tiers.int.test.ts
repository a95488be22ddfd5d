/**
 * Token-balance tiers from the chain: a wallet linked by signature, its platform-token balance read
 * through the chain-reader port from a real ERC-20 on an in-process EVM, cached for
 * TOKEN_BALANCE_TTL_MS; credits stay the fallback when the balance is short or unreadable.
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startApiHarness, type ApiHarness } from '../support/api-harness.js';
import { type DeployedToken, type LocalEvm, startLocalEvm } from '../support/evm/local-evm.js';
import { waitFor } from '../support/http.js';

const TTL_MS = 300;
let evm: LocalEvm;
let api: ApiHarness;
let token: DeployedToken;

const call = async (method: string, path: string, key: string, body?: unknown) => {
  const response = await fetch(`${api.base}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) as any };
  } catch {
    throw new Error(`${method} ${path}: ${response.status} ${text.replace(/<[^>]+>/g, ' ').slice(0, 1500)}`);
  }
};
const tierOf = async (key: string) => {
  await api.meter.flush();
  return (await call('GET', '/pricing/access', key)).body.data;
};
const tokens = (n: number) => BigInt(n) * 10n ** 18n;

beforeAll(async () => {
  evm = await startLocalEvm();
  token = await evm.deployToken('Platform', 'PLAT', 18);
  api = await startApiHarness({
    env: {
      POLYGON_RPC_URL: evm.url,
      CHAIN_ID: String(evm.chainId),
      CHAIN_RPC_BATCH_SIZE: '10',
      CHAIN_RPC_BUDGET_PER_10S: '100000',
      CHAIN_RPC_TIMEOUT_MS: '1000',
      PLATFORM_TOKEN_CONTRACT: token.address,
      PLATFORM_TOKEN_DECIMALS: '18',
      TOKEN_BALANCE_TTL_MS: String(TTL_MS),
      TIER2_TOKEN_THRESHOLD: '1000',
      TIER3_TOKEN_THRESHOLD: '10000',
    },
  });
}, 60_000);
afterAll(async () => {
  await api?.close();
  await evm?.close();
});

test("a linked wallet's on-chain balance sets the tier, and follows transfers after the cache TTL", async () => {
  const key = (await api.admin.createKey('holder', '1')).api_key;
  const wallet = await evm.newAccount();
  await evm.mint(token, wallet.address, tokens(12_000));
  expect((await tierOf(key)).tier).toBe('1');

  const { link_message } = (await call('GET', '/account/wallet', key)).body.data;
  const signature = await wallet.signMessage({ message: link_message });
  const linked = await call('PUT', '/account/wallet', key, { address: wallet.address, signature });
  expect(linked.status).toBe(200);
  expect(linked.body.data).toMatchObject({
    address: wallet.address.toLowerCase(),
    token_balance: '12000',
    token_contract: token.address.toLowerCase(),
    chain_id: evm.chainId,
    cache_ttl_seconds: 0,
  });
  expect(await tierOf(key)).toMatchObject({ tier: '3', token_balance: 12_000 });
  expect((await call('GET', '/trades', key)).status).toBe(200);

  // 11,500 tokens leave: 500 remain, below Tier 2. The cached balance holds until the TTL passes.
  await evm.transfer(token, wallet, evm.deployer.address, tokens(11_500));
  await waitFor(async () => (await tierOf(key)).tier === '1', 5_000, 'the tier to follow the chain balance', 50);
  expect((await tierOf(key)).token_balance).toBe(500);
  expect((await call('GET', '/trades', key)).status).toBe(402);
});

test('a signature for another account or from another wallet is refused; one wallet lifts one account', async () => {
  const first = (await api.admin.createKey('first', '1')).api_key;
  const second = (await api.admin.createKey('second', '1')).api_key;
  const wallet = await evm.newAccount();
  const stranger = await evm.newAccount();
  const firstMessage = (await call('GET', '/account/wallet', first)).body.data.link_message;
  const secondMessage = (await call('GET', '/account/wallet', second)).body.data.link_message;
  // Replaying the first account's signature on the second account fails: the message names the account.
  const forFirst = await wallet.signMessage({ message: firstMessage });
  const replay = await call('PUT', '/account/wallet', second, { address: wallet.address, signature: forFirst });
  expect(replay.status).toBe(400);
  expect(replay.body.error).toMatch(/^signature:/);
  const byStranger = await stranger.signMessage({ message: firstMessage });
  expect((await call('PUT', '/account/wallet', first, { address: wallet.address, signature: byStranger })).status).toBe(400);
  expect((await call('PUT', '/account/wallet', first, { address: wallet.address, signature: forFirst })).status).toBe(200);
  const taken = await call('PUT', '/account/wallet', second, {
    address: wallet.address,
    signature: await wallet.signMessage({ message: secondMessage }),
  });
  expect(taken.status).toBe(409);
  expect((await call('DELETE', '/account/wallet', first)).body.data.address).toBeNull();
});

test('credits are the fallback: a short balance, or an unreachable chain, leaves Tier 2 to credits', async () => {
  const key = (await api.admin.createKey('fallback', '1')).api_key;
  const wallet = await evm.newAccount();
  await evm.mint(token, wallet.address, tokens(100));
  const message = (await call('GET', '/account/wallet', key)).body.data.link_message;
  await call('PUT', '/account/wallet', key, { address: wallet.address, signature: await wallet.signMessage({ message }) });
  expect(await tierOf(key)).toMatchObject({ tier: '1', token_balance: 100 });
  await api.admin.addCredits(key, 5);
  expect((await tierOf(key)).tier).toBe('2');

  // The chain goes away: the last balance read stands, and credits still carry Tier 2.
  await evm.pause();
  try {
    await new Promise((r) => setTimeout(r, TTL_MS + 50));
    expect(await tierOf(key)).toMatchObject({ tier: '2', token_balance: 100, credits: 5 });
    // A wallet never read before has no balance to fall back on: only credits count.
    const unread = (await api.admin.createKey('unread', '1')).api_key;
    const offline = privateKeyToAccount(generatePrivateKey());
    const unreadMessage = (await call('GET', '/account/wallet', unread)).body.data.link_message;
    const linked = await call('PUT', '/account/wallet', unread, {
      address: offline.address,
      signature: await offline.signMessage({ message: unreadMessage }),
    });
    expect(linked.body.data).toMatchObject({ address: offline.address.toLowerCase(), token_balance: null });
    expect(await tierOf(unread)).toMatchObject({ tier: '1', token_balance: 0 });
    await api.admin.addCredits(unread, 1);
    expect((await tierOf(unread)).tier).toBe('2');
  } finally {
    await evm.serve();
  }
});

/**
 * Fee confirmation by transaction hash against a real EVM in the test process (Hardhat's EDR): real
 * ERC-20 contracts deployed, real signed transfers mined, read back through the service's own viem
 * adapter of the chain-reader port. Each refused payment names its reason; the fee stays quoted.
 */
import type { Address, Hash } from 'viem';
import { startApiHarness, type ApiHarness } from '../support/api-harness.js';
import { type DeployedToken, type LocalEvm, startLocalEvm } from '../support/evm/local-evm.js';

let evm: LocalEvm;
let api: ApiHarness;
let usd: DeployedToken;
let platform: DeployedToken;
let otherToken: DeployedToken;
let treasury: Address;
let key: string;
let clockOffsetMs = 0;

const request = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${api.base}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
};
const quote = async (currency: string, payer: Address, notional = '1000') => {
  const response = await request('POST', '/fees/quote', { notional_usdc: notional, currency, payer_address: payer });
  expect(response.status).toBe(201);
  return response.body.data;
};
const settle = (feeId: string, txHash?: Hash | string) => request('POST', `/fees/${feeId}/settle`, txHash ? { tx_hash: txHash } : {});
const refusal = async (feeId: string, txHash: string) => {
  const response = await settle(feeId, txHash);
  expect(response.status).toBe(400);
  expect(response.body.code).toBe('BAD_REQUEST');
  expect(response.body.error).toMatch(/^tx_hash: payment refused/);
  return response.body.reason as string;
};
const funded = async (amount = 100_000_000n) => {
  const payer = await evm.newAccount();
  await evm.mint(usd, payer.address, amount);
  return payer;
};
/** Confirmations are 3: the payment's block and two on top. */
const confirm = () => evm.mine(2);

beforeAll(async () => {
  evm = await startLocalEvm();
  [usd, platform, otherToken] = [
    await evm.deployToken('Test pUSD', 'pUSD', 6),
    await evm.deployToken('Platform', 'PLAT', 18),
    await evm.deployToken('Other USD', 'oUSD', 6),
  ];
  treasury = (await evm.newAccount(0n)).address;
  api = await startApiHarness({
    env: {
      POLYGON_RPC_URL: evm.url,
      CHAIN_ID: String(evm.chainId),
      CHAIN_RPC_BATCH_SIZE: '10',
      CHAIN_RPC_BUDGET_PER_10S: '100000',
      CHAIN_RPC_TIMEOUT_MS: '2000',
      FEE_TREASURY_ADDRESS: treasury,
      FEE_USDC_CONTRACTS: usd.address,
      FEE_CONFIRMATIONS: '3',
      FEE_NATIVE_PRICE_USDC: '2',
      PLATFORM_TOKEN_CONTRACT: platform.address,
      PLATFORM_TOKEN_DECIMALS: '18',
      PLATFORM_TOKEN_PRICE_USDC: '0.5',
    },
    clock: () => Date.now() + clockOffsetMs,
  });
  key = (await api.admin.createKey('copy-bot', '1')).api_key;
}, 60_000);
afterAll(async () => {
  await api?.close();
  await evm?.close();
});

test('a stablecoin Transfer of the quoted amount to the treasury settles the fee once it has the confirmations', async () => {
  const payer = await funded();
  const fee = await quote('usdc', payer.address);
  // 1000 x 50 bps = 5 USDC = 5,000,000 base units, payable to the treasury in the configured stablecoin.
  expect(fee).toMatchObject({
    state: 'quoted',
    fee_usdc: '5',
    amount: '5',
    amount_base_units: '5000000',
    decimals: 6,
    pay_to: treasury.toLowerCase(),
    token_contracts: [usd.address.toLowerCase()],
    chain_id: evm.chainId,
    payer_address: payer.address.toLowerCase(),
  });
  const tx = await evm.transfer(usd, payer, treasury, 5_000_000n);
  expect(await refusal(fee.fee_id, tx)).toBe('insufficient_confirmations');
  expect((await request('GET', `/fees/${fee.fee_id}`)).body.data.state).toBe('quoted');
  await confirm();
  const settled = await settle(fee.fee_id, tx);
  expect(settled.status).toBe(200);
  expect(settled.body.data).toMatchObject({
    state: 'settled',
    payment: { tx_hash: tx.toLowerCase(), amount_base_units: '5000000', token_contract: usd.address.toLowerCase() },
  });
  // Charged once: settling again is a conflict; the same transaction cannot pay another fee.
  const again = await settle(fee.fee_id, tx);
  expect(again.status).toBe(409);
  expect(again.body.code).toBe('CONFLICT');
  const next = await quote('usdc', payer.address);
  expect(await refusal(next.fee_id, tx)).toBe('tx_already_used');
});

test('refusals name their reason: pending, reverted, too small, wrong recipient, wrong payer, wrong token, not found', async () => {
  const payer = await funded();
  const fee = await quote('usdc', payer.address);

  await evm.setAutomine(false);
  let pending: Hash;
  try {
    pending = await evm.transfer(usd, payer, treasury, 5_000_000n, { gas: 100_000n });
    expect(await refusal(fee.fee_id, pending)).toBe('tx_pending');
  } finally {
    await evm.setAutomine(true);
  }
  await evm.mine(1);

  const broke = await evm.newAccount();
  const brokeFee = await quote('usdc', broke.address);
  const reverted = await evm.transfer(usd, broke, treasury, 5_000_000n, { gas: 100_000n });
  await confirm();
  expect(await refusal(brokeFee.fee_id, reverted)).toBe('tx_reverted');

  const small = await evm.transfer(usd, payer, treasury, 4_999_999n);
  const elsewhere = await evm.transfer(usd, payer, evm.deployer.address, 5_000_000n);
  const stranger = await funded();
  const byStranger = await evm.transfer(usd, stranger, treasury, 5_000_000n);
  await evm.mint(otherToken, payer.address, 10_000_000n);
  const otherCoin = await evm.transfer(otherToken, payer, treasury, 5_000_000n);
  await confirm();
  expect(await refusal(fee.fee_id, small)).toBe('amount_too_small');
  expect(await refusal(fee.fee_id, elsewhere)).toBe('wrong_recipient');
  expect(await refusal(fee.fee_id, byStranger)).toBe('wrong_payer');
  expect(await refusal(fee.fee_id, otherCoin)).toBe('wrong_token');
  expect(await refusal(fee.fee_id, `0x${'12'.repeat(32)}`)).toBe('tx_not_found');
  // None of them settled it; the pending transfer, now mined and confirmed, does.
  expect((await request('GET', `/fees/${fee.fee_id}`)).body.data.state).toBe('quoted');
  expect((await settle(fee.fee_id, pending!)).body.data.state).toBe('settled');
});

test('native coin and platform-token fees are converted at the configured prices and confirmed the same way', async () => {
  const payer = await funded();
  // 1000 x 50 bps = 5 USDC at 2 USDC per coin = 2.5 coins.
  const native = await quote('native', payer.address);
  expect(native).toMatchObject({
    amount: '2.5',
    amount_base_units: '2500000000000000000',
    decimals: 18,
    price_usdc: '2',
    token_contracts: [],
  });
  const tooLittle = await evm.sendNative(payer, treasury, 2_499_999_999_999_999_999n);
  const enough = await evm.sendNative(payer, treasury, 2_500_000_000_000_000_000n);
  await confirm();
  expect(await refusal(native.fee_id, tooLittle)).toBe('amount_too_small');
  // An ERC-20 transfer does not pay a native fee, nor the reverse.
  const erc20 = await evm.transfer(usd, payer, treasury, 5_000_000n);
  await confirm();
  expect(await refusal(native.fee_id, erc20)).toBe('wrong_recipient');
  expect((await settle(native.fee_id, enough)).body.data).toMatchObject({ state: 'settled', payment: { token_contract: null } });
  const usdcFee = await quote('usdc', payer.address);
  expect(await refusal(usdcFee.fee_id, enough)).toBe('tx_already_used');

  // The platform token pays 25 bps: 1000 x 25 bps = 2.5 USDC at 0.5 USDC per token = 5 tokens.
  const token = await quote('platform_token', payer.address);
  expect(token).toMatchObject({ rate_bps: 25, fee_usdc: '2.5', amount: '5', amount_base_units: '5000000000000000000' });
  await evm.mint(platform, payer.address, 10n ** 19n);
  const paid = await evm.transfer(platform, payer, treasury, 5n * 10n ** 18n);
  await confirm();
  expect((await settle(token.fee_id, paid)).body.data).toMatchObject({
    state: 'settled',
    payment: { token_contract: platform.address.toLowerCase() },
  });
});

test('a payment mined before the quote, or after it expired, is refused; an expired quote is a conflict', async () => {
  const payer = await funded();
  const early = await evm.transfer(usd, payer, treasury, 5_000_000n);
  await confirm();
  clockOffsetMs = 5 * 60_000; // the quote is made five minutes after the payment
  const later = await quote('usdc', payer.address);
  clockOffsetMs = 0;
  expect(await refusal(later.fee_id, early)).toBe('tx_before_quote');

  clockOffsetMs = -20 * 60_000; // quoted twenty minutes ago: expired ten minutes ago
  const stale = await quote('usdc', payer.address);
  clockOffsetMs = 0;
  expect((await request('GET', `/fees/${stale.fee_id}`)).body.data.state).toBe('expired');
  const late = await evm.transfer(usd, payer, treasury, 5_000_000n);
  await confirm();
  expect(await refusal(stale.fee_id, late)).toBe('tx_after_expiry');

  await api.admin.addCredits(key, 1000);
  clockOffsetMs = -20 * 60_000;
  const expiredCredits = await quote('credits', payer.address);
  clockOffsetMs = 0;
  const conflict = await settle(expiredCredits.fee_id);
  expect(conflict.status).toBe(409);
  expect(conflict.body.error).toMatch(/expired/);
});

test('input errors: 404 for an unknown fee, 400 for a missing tx_hash or a credits fee with one, 503 while the chain is unreachable', async () => {
  expect((await settle('fee_000000')).status).toBe(404);
  const payer = await funded();
  const fee = await quote('usdc', payer.address);
  const missing = await settle(fee.fee_id);
  expect(missing.status).toBe(400);
  expect(missing.body.error).toMatch(/^tx_hash: required/);
  const credits = (await request('POST', '/fees/quote', { notional_usdc: '10', currency: 'credits' })).body.data;
  expect((await settle(credits.fee_id, `0x${'ab'.repeat(32)}`)).body.error).toMatch(/^tx_hash: a credits fee/);
  expect((await request('POST', '/fees/quote', { notional_usdc: '10', currency: 'usdc' })).body.error).toMatch(/^payer_address: required/);
  expect((await request('POST', '/fees/quote', { notional_usdc: '0', currency: 'credits' })).body.error).toMatch(/^notional_usdc/);

  const tx = await evm.transfer(usd, payer, treasury, 5_000_000n);
  await confirm();
  await evm.pause();
  try {
    const unavailable = await settle(fee.fee_id, tx);
    expect(unavailable.status).toBe(503);
    expect(unavailable.body.code).toBe('SERVICE_UNAVAILABLE');
  } finally {
    await evm.serve();
  }
  expect((await settle(fee.fee_id, tx)).body.data.state).toBe('settled');

  // The ledger lists every fee of the account, newest first, with cursors.
  const first = (await request('GET', '/fees/ledger?limit=3')).body;
  expect(first.data).toHaveLength(3);
  // Sequence order, not text order: this account has more than ten fees by now.
  expect(first.data.map((f: any) => f.fee_id)).toEqual([credits.fee_id, fee.fee_id, expect.any(String)]);
  expect(first.pagination.has_more).toBe(true);
  const settledOnly = (await request('GET', '/fees/ledger?state=settled&limit=100')).body.data;
  expect(settledOnly.every((f: any) => f.state === 'settled')).toBe(true);
  expect(settledOnly.map((f: any) => f.fee_id)).toContain(fee.fee_id);
});

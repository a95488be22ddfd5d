/**
 * Fee confirmation by transaction hash against a real EVM in the test process (Hardhat's EDR): real
 * ERC-20 contracts deployed, real signed transfers mined, read back through the service's own viem
 * adapter of the chain-reader port. Each refused payment names its reason; the fee stays quoted.
 */
import type { Address, Hash } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
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

const request = (method: string, path: string, body?: unknown) => requestAs(key, method, path, body);
const requestAs = async (as: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${api.base}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${as}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
};
/** The payer proof of each quoted fee: its payer's signature of the fee's payer_message. */
const proofs = new Map<string, string>();
const quote = async (currency: string, payer: PrivateKeyAccount, notional = '1000', as = key) => {
  const response = await requestAs(as, 'POST', '/fees/quote', { notional_usdc: notional, currency, payer_address: payer.address });
  expect(response.status).toBe(201);
  const fee = response.body.data;
  if (fee.payer_message) proofs.set(fee.fee_id, await payer.signMessage({ message: fee.payer_message }));
  return fee;
};
const settle = (feeId: string, txHash?: Hash | string, as = key) =>
  requestAs(
    as,
    'POST',
    `/fees/${feeId}/settle`,
    txHash ? { tx_hash: txHash, ...(proofs.has(feeId) ? { payer_signature: proofs.get(feeId) } : {}) } : {},
  );
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
  const fee = await quote('usdc', payer);
  // 1000 x 50 bps = 5 USDC = 5,000,000 base units, payable to the treasury in the configured stablecoin.
  expect(fee).toMatchObject({
    state: 'quoted',
    fee_usdc: 5,
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
  const next = await quote('usdc', payer);
  expect(await refusal(next.fee_id, tx)).toBe('tx_already_used');
});

test('refusals name their reason: pending, reverted, too small, wrong recipient, wrong payer, wrong token, not found', async () => {
  const payer = await funded();
  const fee = await quote('usdc', payer);

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
  const brokeFee = await quote('usdc', broke);
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
  const native = await quote('native', payer);
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
  const usdcFee = await quote('usdc', payer);
  expect(await refusal(usdcFee.fee_id, enough)).toBe('tx_already_used');

  // The platform token pays 25 bps: 1000 x 25 bps = 2.5 USDC at 0.5 USDC per token = 5 tokens.
  const token = await quote('platform_token', payer);
  expect(token).toMatchObject({ rate_bps: 25, fee_usdc: 2.5, amount: '5', amount_base_units: '5000000000000000000' });
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
  const later = await quote('usdc', payer);
  clockOffsetMs = 0;
  expect(await refusal(later.fee_id, early)).toBe('tx_before_quote');

  clockOffsetMs = -20 * 60_000; // quoted twenty minutes ago: expired ten minutes ago
  const stale = await quote('usdc', payer);
  clockOffsetMs = 0;
  expect((await request('GET', `/fees/${stale.fee_id}`)).body.data.state).toBe('expired');
  const late = await evm.transfer(usd, payer, treasury, 5_000_000n);
  await confirm();
  expect(await refusal(stale.fee_id, late)).toBe('tx_after_expiry');

  await api.admin.addCredits(key, 1000);
  clockOffsetMs = -20 * 60_000;
  const expiredCredits = await quote('credits', payer);
  clockOffsetMs = 0;
  const conflict = await settle(expiredCredits.fee_id);
  expect(conflict.status).toBe(409);
  expect(conflict.body.error).toMatch(/expired/);
});

test('input errors: 404 for an unknown fee, 400 for a missing tx_hash or a credits fee with one, 503 while the chain is unreachable', async () => {
  expect((await settle('fee_000000')).status).toBe(404);
  const payer = await funded();
  const fee = await quote('usdc', payer);
  const missing = await settle(fee.fee_id);
  expect(missing.status).toBe(400);
  expect(missing.body.error).toMatch(/^tx_hash: required/);
  const credits = (await request('POST', '/fees/quote', { notional_usdc: 10, currency: 'credits' })).body.data;
  expect((await settle(credits.fee_id, `0x${'ab'.repeat(32)}`)).body.error).toMatch(/^tx_hash: a credits fee/);
  expect((await request('POST', '/fees/quote', { notional_usdc: 10, currency: 'usdc' })).body.error).toMatch(/^payer_address: required/);
  expect((await request('POST', '/fees/quote', { notional_usdc: 0, currency: 'credits' })).body.error).toMatch(/^notional_usdc/);

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

test('another account cannot claim a wallet’s payment by quoting with its address: the payer proves the fee is its own', async () => {
  // Issue 59 H3: an attacker quoting with the victim's wallet settled its fee with the victim's transaction.
  const victimKey = (await api.admin.createKey('victim', '1')).api_key;
  const attackerKey = (await api.admin.createKey('attacker', '1')).api_key;
  const victim = await funded();
  const attackerWallet = await evm.newAccount();
  const victimFee = await quote('usdc', victim, '1000', victimKey);
  const claim = (
    await requestAs(attackerKey, 'POST', '/fees/quote', { notional_usdc: 1000, currency: 'usdc', payer_address: victim.address })
  ).body.data;
  const paid = await evm.transfer(usd, victim, treasury, 5_000_000n);
  await confirm();
  // Without a signature, with the attacker's own wallet's, and with the victim's signature of the victim's fee (a replay).
  const signatures = [
    async () => undefined,
    () => attackerWallet.signMessage({ message: claim.payer_message }),
    async () => proofs.get(victimFee.fee_id),
  ];
  for (const sign of signatures) {
    const payer_signature = await sign();
    const refused = await requestAs(attackerKey, 'POST', `/fees/${claim.fee_id}/settle`, {
      tx_hash: paid,
      ...(payer_signature ? { payer_signature } : {}),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.reason).toBe('payer_not_proven');
  }
  expect((await requestAs(attackerKey, 'GET', `/fees/${claim.fee_id}`)).body.data.state).toBe('quoted');
  // What the payer signs names the fee and the account.
  expect(victimFee.payer_message).toBe(
    `tapeline: wallet ${victim.address.toLowerCase()} pays fee ${victimFee.fee_id} of account ${(await api.accounts.authenticate(victimKey))!.account_id}.`,
  );
  // The victim's own fee settles with its own payment.
  expect((await settle(victimFee.fee_id, paid, victimKey)).body.data.state).toBe('settled');
});

test('the account’s linked wallet needs no signature per fee (it proved itself when linked)', async () => {
  const linkedKey = (await api.admin.createKey('linked', '1')).api_key;
  const wallet = await funded();
  const link = (await requestAs(linkedKey, 'GET', '/account/wallet')).body.data.link_message;
  const linked = await requestAs(linkedKey, 'PUT', '/account/wallet', {
    address: wallet.address,
    signature: await wallet.signMessage({ message: link }),
  });
  expect(linked.status).toBe(200);
  const fee = (await requestAs(linkedKey, 'POST', '/fees/quote', { notional_usdc: 1000, currency: 'usdc', payer_address: wallet.address }))
    .body.data;
  const paid = await evm.transfer(usd, wallet, treasury, 5_000_000n);
  await confirm();
  const settled = await requestAs(linkedKey, 'POST', `/fees/${fee.fee_id}/settle`, { tx_hash: paid });
  expect(settled.body.data?.state).toBe('settled');
});

test('a payment mined even seconds before the quote never counts (there is no clock allowance)', async () => {
  const payer = await funded();
  const early = await evm.transfer(usd, payer, treasury, 5_000_000n);
  await confirm();
  // Quoted thirty seconds after the payment's block time (the old 60 s allowance let it pay); the
  // chain's clock runs ahead of ours when blocks are mined faster than one a second, so it is read.
  clockOffsetMs = (await minedAtMs(early)) + 30_000 - Date.now();
  const fee = await quote('usdc', payer);
  clockOffsetMs = 0;
  expect(await refusal(fee.fee_id, early)).toBe('tx_before_quote');
});

/** The block time of a mined transaction (ms), read over the EVM's JSON-RPC. */
async function minedAtMs(txHash: Hash): Promise<number> {
  const rpc = async (method: string, params: unknown[]) =>
    (
      (await (
        await fetch(evm.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        })
      ).json()) as { result: any }
    ).result;
  const receipt = await rpc('eth_getTransactionReceipt', [txHash]);
  const block = await rpc('eth_getBlockByNumber', [receipt.blockNumber, false]);
  return Number(BigInt(block.timestamp)) * 1000;
}

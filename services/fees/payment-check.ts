/**
 * Confirms an on-chain fee payment by transaction hash through the chain-reader port: the
 * transaction is mined and succeeded, has the required confirmations (head - its block + 1), moved
 * at least the quoted amount to the treasury from the payer - as ERC-20 `Transfer` logs of an
 * accepted token contract, or as the transaction's own native value - and was mined within the
 * quote's validity (never before it: block times are whole seconds, so the quote's second counts).
 * A block that cannot be read is an error (the caller answers 503, settle again), never a pass. Every refusal names its reason. Whether the hash already paid another fee is the
 * ledger's check (a unique index), not the chain's.
 */
import type { ChainReader } from '../ports/chain-reader.js';

/** keccak256("Transfer(address,address,uint256)"): the ERC-20 Transfer event's topic0. */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

type PaymentRefusal =
  | 'tx_not_found'
  | 'tx_pending'
  | 'tx_reverted'
  | 'insufficient_confirmations'
  | 'wrong_recipient'
  | 'wrong_payer'
  | 'wrong_token'
  | 'amount_too_small'
  | 'tx_before_quote'
  | 'tx_after_expiry';

export interface ExpectedPayment {
  kind: 'erc20' | 'native';
  /** Accepted ERC-20 contracts (lower-case); empty for native. */
  tokenContracts: readonly string[];
  treasury: string;
  payer: string;
  minAmount: bigint;
  confirmations: number;
  /** Block time bounds (ms): the quote's creation (less a clock allowance) and its expiry. */
  notBeforeMs: number;
  notAfterMs: number;
}

export type PaymentCheck =
  | { ok: true; blockNumber: bigint; amount: bigint; tokenContract: string | null }
  | { ok: false; reason: PaymentRefusal; detail: string };

const refuse = (reason: PaymentRefusal, detail: string): PaymentCheck => ({ ok: false, reason, detail });

/** The address in an indexed address topic (the low 20 bytes of the 32-byte word). */
const topicAddress = (topic: string | undefined) => (topic ? `0x${topic.slice(-40)}`.toLowerCase() : '');

export async function checkPayment(reader: ChainReader, txHash: string, expected: ExpectedPayment): Promise<PaymentCheck> {
  const hash = txHash.toLowerCase();
  const treasury = expected.treasury.toLowerCase();
  const payer = expected.payer.toLowerCase();
  const tx = await reader.transaction(hash);
  if (!tx) return refuse('tx_not_found', `no transaction ${hash} on chain (yet)`);
  if (tx.blockNumber === null) return refuse('tx_pending', 'the transaction is not mined yet; settle again once it is');
  const receipt = await reader.receipt(hash);
  if (!receipt) return refuse('tx_pending', 'the transaction has no receipt yet; settle again once it is mined');
  if (receipt.status === 'reverted')
    return refuse('tx_reverted', `the transaction reverted in block ${receipt.blockNumber}; nothing was paid`);
  const head = await reader.blockNumber();
  const confirmations = head - receipt.blockNumber + 1n;
  if (confirmations < BigInt(expected.confirmations))
    return refuse(
      'insufficient_confirmations',
      `${confirmations} of ${expected.confirmations} confirmations; settle again in a few blocks`,
    );

  let amount = 0n;
  let tokenContract: string | null = null;
  if (expected.kind === 'native') {
    if (tx.to !== treasury)
      return refuse('wrong_recipient', `the transaction pays ${tx.to ?? 'a contract creation'}, not the treasury ${treasury}`);
    if (tx.from !== payer) return refuse('wrong_payer', `sent by ${tx.from}, not the quoted payer ${payer}`);
    amount = tx.value;
  } else {
    const transfers = receipt.logs
      .filter((log) => !log.removed && log.topics[0] === TRANSFER_TOPIC && log.topics.length === 3)
      .map((log) => ({ token: log.address, from: topicAddress(log.topics[1]), to: topicAddress(log.topics[2]), value: BigInt(log.data) }));
    const toTreasury = transfers.filter((t) => t.to === treasury);
    if (toTreasury.length === 0) {
      if (tx.to === treasury && tx.value > 0n)
        return refuse('wrong_token', 'the transaction sends native coin; this fee is payable in an ERC-20 token');
      return refuse('wrong_recipient', `no Transfer to the treasury ${treasury} in this transaction`);
    }
    const accepted = toTreasury.filter((t) => expected.tokenContracts.includes(t.token));
    if (accepted.length === 0)
      return refuse(
        'wrong_token',
        `Transfers to the treasury are of ${[...new Set(toTreasury.map((t) => t.token))].join(', ')}, not of ${expected.tokenContracts.join(' or ')}`,
      );
    const fromPayer = accepted.filter((t) => t.from === payer);
    if (fromPayer.length === 0)
      return refuse('wrong_payer', `the Transfer to the treasury comes from ${accepted[0]!.from}, not the quoted payer ${payer}`);
    // One token per payment: the accepted contract that moved the most (stablecoins are not summed across contracts).
    const byToken = new Map<string, bigint>();
    for (const t of fromPayer) byToken.set(t.token, (byToken.get(t.token) ?? 0n) + t.value);
    [tokenContract, amount] = [...byToken.entries()].sort((a, b) => (b[1] > a[1] ? 1 : b[1] < a[1] ? -1 : 0))[0]!;
  }
  if (amount < expected.minAmount) return refuse('amount_too_small', `paid ${amount} base units, the fee is ${expected.minAmount}`);

  const block = await reader.block(receipt.blockNumber);
  if (!block) throw new Error(`block ${receipt.blockNumber} of the payment could not be read`);
  const minedMs = block.timestamp * 1000;
  if (minedMs < expected.notBeforeMs)
    return refuse('tx_before_quote', 'the transaction was mined before the fee was quoted; pay the quote with a new transaction');
  if (minedMs > expected.notAfterMs)
    return refuse('tx_after_expiry', 'the transaction was mined after the quote expired; request a new quote');
  return { ok: true, blockNumber: receipt.blockNumber, amount, tokenContract };
}

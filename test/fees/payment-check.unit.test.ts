/**
 * A payment whose block cannot be read (a lagging or pruned provider answering null) is an error the
 * caller turns into 503 and a retry - never a payment accepted with its time checks skipped (issue 59 H3).
 */
import { checkPayment, TRANSFER_TOPIC } from '../../services/fees/payment-check.js';
import type { ChainBlock, ChainReader } from '../../services/ports/chain-reader.js';

const PAYER = `0x${'aa'.repeat(20)}`;
const TREASURY = `0x${'bb'.repeat(20)}`;
const TOKEN = `0x${'cc'.repeat(20)}`;
const TX = `0x${'dd'.repeat(32)}`;
const word = (address: string) => `0x${address.slice(2).padStart(64, '0')}`;

/** A chain holding one mined stablecoin transfer of 5 USDC from PAYER to TREASURY in block 100; its block as given. */
function chainWith(block: ChainBlock | null): ChainReader {
  const reader: Partial<ChainReader> = {
    transaction: async () => ({ hash: TX, from: PAYER, to: TOKEN, value: 0n, blockNumber: 100n }),
    receipt: async () => ({
      transactionHash: TX,
      blockNumber: 100n,
      blockHash: `0x${'01'.repeat(32)}`,
      status: 'success',
      from: PAYER,
      to: TOKEN,
      logs: [
        {
          address: TOKEN,
          topics: [TRANSFER_TOPIC, word(PAYER), word(TREASURY)],
          data: `0x${5_000_000n.toString(16).padStart(64, '0')}`,
          blockNumber: 100n,
          blockHash: `0x${'01'.repeat(32)}`,
          transactionHash: TX,
          logIndex: 0,
          removed: false,
        },
      ],
    }),
    blockNumber: async () => 110n,
    block: async () => block,
  };
  return reader as ChainReader;
}

const expected = {
  kind: 'erc20' as const,
  tokenContracts: [TOKEN],
  treasury: TREASURY,
  payer: PAYER,
  minAmount: 5_000_000n,
  confirmations: 3,
  notBeforeMs: 1_700_000_000_000,
  notAfterMs: 1_700_000_600_000,
};

test('a null block lookup is an error to retry, not a skipped time check', async () => {
  await expect(checkPayment(chainWith(null), TX, expected)).rejects.toThrow(/block 100 of the payment could not be read/);
});

test('with the block read, a payment one second before the quote is refused and one in the quote’s second is accepted', async () => {
  const block = (seconds: number): ChainBlock => ({
    number: 100n,
    hash: `0x${'01'.repeat(32)}`,
    parentHash: `0x${'02'.repeat(32)}`,
    timestamp: seconds,
  });
  expect(await checkPayment(chainWith(block(1_699_999_999)), TX, expected)).toMatchObject({ ok: false, reason: 'tx_before_quote' });
  expect(await checkPayment(chainWith(block(1_700_000_000)), TX, expected)).toMatchObject({ ok: true, amount: 5_000_000n });
});

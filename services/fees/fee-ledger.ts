/**
 * The fee ledger (docs/FEES.md): quotes, settlement at most once, history. A fee row moves from
 * `quoted` to `settled` exactly once, inside a transaction that holds the row's lock, so concurrent
 * settles of one fee find it settled and get 409. Credits are drawn in the same transaction; an
 * on-chain fee is settled by a confirmed payment (payment-check.ts), and a transaction hash can pay
 * one fee only (unique index). A quote past expires_at reads as `expired` and no longer settles,
 * except by a payment mined before it expired.
 */
import crypto from 'node:crypto';
import type { CursorKey } from '../http/cursor.js';
import { ApiError } from '../http/errors.js';
import type { Fee } from '../http/types.generated.js';
import type { FeeCurrency } from '../config.js';
import type { ChainReader } from '../ports/chain-reader.js';
import type { ControlStore, SqlExecutor } from '../ports/control-store.js';
import { formatScaled, parseScaled, servedAmount } from '../shared/decimal.js';
import { iso, isoOrNull } from '../shared/time.js';
import { feeTerms, type FeesSettings } from './fee-terms.js';
import { checkPayment } from './payment-check.js';
import { linkedWallet } from '../access/wallet-links.js';
import { type Hex, verifyMessage } from 'viem';

export interface QuoteInput {
  notional_usdc: string | number;
  currency: FeeCurrency;
  payer_address?: string;
  reference?: string;
}

interface Row {
  seq: string;
  fee_id: string;
  account_id: string;
  state: 'quoted' | 'settled';
  currency: FeeCurrency;
  notional_usdc: string;
  rate_bps: number;
  fee_usdc: string;
  amount: string;
  decimals: number;
  price_usdc: string | null;
  chain_id: number | null;
  token_contracts: string[] | null;
  treasury: string | null;
  payer: string | null;
  reference: string | null;
  quoted_at: Date;
  expires_at: Date;
  settled_at: Date | null;
  tx_hash: string | null;
  tx_block: string | null;
  paid_amount: string | null;
  paid_token: string | null;
}

const COLUMNS = `seq::text AS seq, fee_id, account_id::text AS account_id, state, currency, notional_usdc::text AS notional_usdc, rate_bps,
  fee_usdc::text AS fee_usdc, amount::text AS amount, decimals, price_usdc, chain_id, token_contracts, treasury, payer, reference, quoted_at,
  expires_at, settled_at, tx_hash, tx_block::text AS tx_block, paid_amount::text AS paid_amount, paid_token`;

/**
 * What the payer wallet signs (EIP-191 personal_sign) to prove the payment is its own for this fee:
 * it names the fee and the account, so a signature cannot be replayed for another fee or account.
 */
const payerMessage = (feeId: string, payer: string, accountId: string) =>
  `tapeline: wallet ${payer} pays fee ${feeId} of account ${accountId}.`;

export interface FeeLedgerOptions {
  control: ControlStore;
  settings: FeesSettings;
  /** Opened on first use: nothing touches the chain until an on-chain fee is settled. */
  chain: () => ChainReader;
  clock?: () => number;
}

export class FeeLedger {
  private readonly clock: () => number;

  constructor(private readonly options: FeeLedgerOptions) {
    this.clock = options.clock ?? Date.now;
  }

  async quote(accountId: string, input: QuoteInput): Promise<Fee> {
    const notional = parseScaled(input.notional_usdc);
    if (notional === null) throw ApiError.badRequest('notional_usdc: must be a USDC amount with at most 6 decimals');
    if (notional <= 0n) throw ApiError.badRequest('notional_usdc: must be greater than 0');
    if (notional > 10n ** 15n) throw ApiError.badRequest('notional_usdc: at most 1,000,000,000 USDC');
    const terms = feeTerms(this.options.settings, input.currency, notional);
    if ('unavailable' in terms) throw ApiError.badRequest(terms.unavailable);
    const onChain = input.currency !== 'credits';
    if (onChain && !input.payer_address)
      throw ApiError.badRequest(`payer_address: required for ${input.currency} fees (the wallet that pays)`);
    const now = this.clock();
    const [row] = await this.options.control.query<Row>(
      `INSERT INTO fee_ledger (fee_id, account_id, state, currency, notional_usdc, rate_bps, fee_usdc, amount, decimals, price_usdc, chain_id,
                               token_contracts, treasury, payer, reference, quoted_at, expires_at)
       VALUES ($1, $2, 'quoted', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING ${COLUMNS}`,
      [
        `fee_${crypto.randomBytes(12).toString('hex')}`,
        accountId,
        input.currency,
        formatScaled(notional),
        terms.rateBps,
        formatScaled(terms.feeUsdcMicros),
        terms.amountBaseUnits.toString(),
        terms.decimals,
        terms.priceUsdc,
        terms.chainId,
        terms.tokenContracts,
        terms.treasury,
        onChain ? input.payer_address!.toLowerCase() : null,
        input.reference ?? null,
        new Date(now),
        new Date(now + this.options.settings.fees.quoteTtlSeconds * 1000),
      ],
    );
    return this.view(row!);
  }

  async get(accountId: string, feeId: string): Promise<Fee> {
    return this.view(await this.find(this.options.control, accountId, feeId, false));
  }

  /** Newest first; `state` expired = quoted and past expires_at. */
  async list(accountId: string, state: string, after: CursorKey | null, take: number): Promise<Array<Fee & { seq: string }>> {
    const now = new Date(this.clock());
    const condition = {
      quoted: "AND state = 'quoted' AND expires_at > $4",
      expired: "AND state = 'quoted' AND expires_at <= $4",
      settled: "AND state = 'settled'",
    }[state];
    const rows = await this.options.control.query<Row>(
      `SELECT ${COLUMNS} FROM fee_ledger WHERE account_id = $1 AND ($2::bigint IS NULL OR seq < $2::bigint) ${condition ?? ''}
        ORDER BY fee_ledger.seq DESC LIMIT $3`,
      condition?.includes('$4')
        ? [accountId, after ? String(after[0]) : null, take, now]
        : [accountId, after ? String(after[0]) : null, take],
    );
    return rows.map((row) => ({ ...this.view(row), seq: row.seq }));
  }

  async settle(accountId: string, feeId: string, txHash: string | undefined, payerSignature?: string): Promise<Fee> {
    const fee = await this.find(this.options.control, accountId, feeId, false);
    this.assertSettleable(fee, fee.currency !== 'credits');
    if (fee.currency === 'credits') {
      if (txHash) throw ApiError.badRequest('tx_hash: a credits fee is settled from the account balance, without a transaction');
      return this.settleWithCredits(accountId, feeId);
    }
    if (!txHash) throw ApiError.badRequest(`tx_hash: required to settle a ${fee.currency} fee (the payment transaction)`);
    await this.assertPayerProven(fee, payerSignature);
    return this.settleOnChain(accountId, fee, txHash.toLowerCase());
  }

  /**
   * The quoted payer is only a claim: anyone can quote with someone else's wallet and then name that
   * wallet's payment. It is proven by the wallet's signature of the fee's payer_message, or by being
   * the wallet the account linked (PUT /account/wallet, itself signed).
   */
  private async assertPayerProven(fee: Row, signature: string | undefined): Promise<void> {
    const payer = fee.payer!;
    if (signature) {
      let valid = false;
      try {
        valid = await verifyMessage({
          address: payer as Hex,
          message: payerMessage(fee.fee_id, payer, fee.account_id),
          signature: signature as Hex,
        });
      } catch {
        valid = false;
      }
      if (valid) return;
      throw new ApiError(400, 'BAD_REQUEST', `payer_signature: not ${payer}'s signature of this fee's payer_message`, {
        reason: 'payer_not_proven',
      });
    }
    if ((await linkedWallet(this.options.control, fee.account_id)).address === payer) return;
    throw new ApiError(
      400,
      'BAD_REQUEST',
      `payer_signature: required - sign the fee's payer_message with ${payer} (EIP-191 personal_sign), or link that wallet to the account (PUT /account/wallet)`,
      { reason: 'payer_not_proven' },
    );
  }

  private assertSettleable(fee: Row, allowLatePayment: boolean): void {
    if (fee.state === 'settled')
      throw new ApiError(
        409,
        'CONFLICT',
        `fee ${fee.fee_id} is already settled (at ${iso(new Date(fee.settled_at!).getTime())}); a fee is charged once`,
      );
    if (!allowLatePayment && new Date(fee.expires_at).getTime() <= this.clock())
      throw new ApiError(409, 'CONFLICT', `fee ${fee.fee_id} expired at ${iso(new Date(fee.expires_at).getTime())}; request a new quote`);
  }

  private async settleWithCredits(accountId: string, feeId: string): Promise<Fee> {
    const row = await this.options.control.transaction(async (tx) => {
      const fee = await this.find(tx, accountId, feeId, true);
      this.assertSettleable(fee, false);
      const amount = formatScaled(BigInt(fee.amount));
      const drawn = await tx.query('UPDATE accounts SET credits = credits - $2 WHERE id = $1 AND credits >= $2 RETURNING id', [
        accountId,
        amount,
      ]);
      if (drawn.length === 0) {
        const [balance] = await tx.query<{ credits: string }>('SELECT credits::text AS credits FROM accounts WHERE id = $1', [accountId]);
        throw new ApiError(
          402,
          'PAYMENT_REQUIRED',
          `insufficient credits: the fee is ${amount} credits, the account has ${balance?.credits ?? '0'}`,
        );
      }
      const [settled] = await tx.query<Row>(
        `UPDATE fee_ledger SET state = 'settled', settled_at = $2 WHERE fee_id = $1 RETURNING ${COLUMNS}`,
        [feeId, new Date(this.clock())],
      );
      return settled!;
    });
    return this.view(row);
  }

  private async settleOnChain(accountId: string, fee: Row, txHash: string): Promise<Fee> {
    const used = await this.options.control.query<{ fee_id: string }>(
      'SELECT fee_id FROM fee_ledger WHERE chain_id = $1 AND tx_hash = $2',
      [fee.chain_id, txHash],
    );
    if (used.length > 0) throw alreadyUsed(used[0]!.fee_id);
    let check: Awaited<ReturnType<typeof checkPayment>>;
    try {
      check = await checkPayment(this.options.chain(), txHash, {
        kind: fee.currency === 'native' ? 'native' : 'erc20',
        tokenContracts: fee.token_contracts ?? [],
        treasury: fee.treasury!,
        payer: fee.payer!,
        minAmount: BigInt(fee.amount),
        confirmations: this.options.settings.fees.confirmations,
        // Block times are whole seconds: the quote's own second counts, nothing before it.
        notBeforeMs: Math.floor(new Date(fee.quoted_at).getTime() / 1000) * 1000,
        notAfterMs: new Date(fee.expires_at).getTime(),
      });
    } catch (error) {
      throw new ApiError(
        503,
        'SERVICE_UNAVAILABLE',
        `the chain could not be read to confirm the payment: ${(error as Error).message.split('\n')[0]}; settle again`,
        { retryAfterSeconds: 5 },
      );
    }
    if (!check.ok)
      throw new ApiError(400, 'BAD_REQUEST', `tx_hash: payment refused (${check.reason}): ${check.detail}`, {
        reason: check.reason,
      });
    try {
      const row = await this.options.control.transaction(async (tx) => {
        const locked = await this.find(tx, accountId, fee.fee_id, true);
        this.assertSettleable(locked, true);
        const [settled] = await tx.query<Row>(
          `UPDATE fee_ledger SET state = 'settled', settled_at = $2, tx_hash = $3, tx_block = $4, paid_amount = $5, paid_token = $6
            WHERE fee_id = $1 RETURNING ${COLUMNS}`,
          [fee.fee_id, new Date(this.clock()), txHash, check.blockNumber.toString(), check.amount.toString(), check.tokenContract],
        );
        return settled!;
      });
      return this.view(row);
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw alreadyUsed('another fee');
      throw error;
    }
  }

  private async find(db: SqlExecutor, accountId: string, feeId: string, lock: boolean): Promise<Row> {
    const [row] = await db.query<Row>(
      `SELECT ${COLUMNS} FROM fee_ledger WHERE fee_id = $1 AND account_id = $2${lock ? ' FOR UPDATE' : ''}`,
      [feeId, accountId],
    );
    if (!row) throw ApiError.notFound(`fee not found: ${feeId}`);
    return row;
  }

  private view(row: Row): Fee {
    const expired = row.state === 'quoted' && new Date(row.expires_at).getTime() <= this.clock();
    const amount = BigInt(row.amount);
    return {
      fee_id: row.fee_id,
      state: expired ? 'expired' : row.state,
      currency: row.currency,
      notional_usdc: servedAmount(parseScaled(row.notional_usdc)!),
      rate_bps: Number(row.rate_bps),
      fee_usdc: servedAmount(parseScaled(row.fee_usdc)!),
      amount: formatScaled(amount, Number(row.decimals)),
      amount_base_units: amount.toString(),
      decimals: Number(row.decimals),
      price_usdc: row.price_usdc,
      chain_id: row.chain_id === null ? null : Number(row.chain_id),
      pay_to: row.treasury,
      token_contracts: row.token_contracts ?? [],
      payer_address: row.payer,
      payer_message: row.payer ? payerMessage(row.fee_id, row.payer, row.account_id) : null,
      reference: row.reference,
      quoted_at: iso(new Date(row.quoted_at).getTime()),
      expires_at: iso(new Date(row.expires_at).getTime()),
      settled_at: isoOrNull(row.settled_at ? new Date(row.settled_at).getTime() : null),
      payment: row.tx_hash
        ? {
            tx_hash: row.tx_hash,
            block_number: row.tx_block ?? '',
            amount_base_units: row.paid_amount ?? '',
            token_contract: row.paid_token,
          }
        : null,
    };
  }
}

function alreadyUsed(by: string): ApiError {
  return new ApiError(400, 'BAD_REQUEST', `tx_hash: payment refused (tx_already_used): this transaction already paid ${by}`, {
    reason: 'tx_already_used',
  });
}

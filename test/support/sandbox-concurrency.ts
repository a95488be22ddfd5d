/**
 * Concurrency proofs against a real control store (PGlite in the integration tier, PostgreSQL in the
 * engines tier): 50 parallel settles of one fee give exactly one 200 and 49 x 409 (credits drawn
 * once); 50 parallel orders with one Idempotency-Key give one order (cash spent once).
 */
import type { ControlStore } from '../../services/ports/control-store.js';
import { bookSnapshot, conditionId, marketUpserted } from './events.js';
import { type SandboxHarness, sandboxHarness } from './sandbox-harness.js';

const PARALLEL = 50;

export function describeSandboxConcurrency(name: string, openControl: () => Promise<ControlStore | undefined>) {
  describe(`sandbox concurrency on ${name}`, () => {
    let h: SandboxHarness;
    beforeAll(async () => {
      h = await sandboxHarness(`concurrency_${name.replace(/\W/g, '_')}`, {
        control: await openControl(),
        // 50 requests at once from one key: the per-key analytics queue would answer most with 429 (its
        // job, tested in the abuse and query-limit suites); here the ledger's behaviour under them is the point.
        env: { QUERY_QUEUE_PER_KEY: '1000' },
      });
      await h.given({
        markets: [marketUpserted({ market_id: conditionId(201), outcome_token_ids: ['2011', '2012'], tick_size: 0.01 })],
        bookSnapshots: [
          bookSnapshot({
            market_id: conditionId(201),
            asset_id: '2011',
            hash: 'c1',
            // Fresh: an older book is refused (PAPER_MAX_BOOK_AGE_MS).
            timestamp_ms: Date.now(),
            asks: [{ price: 0.4, size: 1000 }],
            bids: [{ price: 0.38, size: 1000 }],
          }),
        ],
      });
    }, 60_000);
    afterAll(() => h?.close());

    test(`${PARALLEL} parallel settles of one fee: exactly one 200, ${PARALLEL - 1} x 409, credits drawn once`, async () => {
      const key = await h.register('settler');
      await h.api.admin.addCredits(key, 100);
      const quote = await h.request('POST', '/fees/quote', key, { notional_usdc: '1000', currency: 'credits' });
      expect(quote.status).toBe(201);
      // 1000 x 50 bps = 5 USDC = 500 credits at 100 credits per USDC.
      expect(quote.body.data).toMatchObject({ fee_usdc: 5, amount: '500', state: 'quoted' });
      await h.api.admin.addCredits(key, 900);
      const feeId = quote.body.data.fee_id;
      const responses = await Promise.all(Array.from({ length: PARALLEL }, () => h.request('POST', `/fees/${feeId}/settle`, key)));
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(PARALLEL - 1);
      expect(responses.filter((r) => r.status === 409).every((r) => r.body.code === 'CONFLICT')).toBe(true);
      const [row] = await h.control.query<{ credits: string }>(
        'SELECT credits::text AS credits FROM accounts WHERE id = (SELECT account_id FROM fee_ledger WHERE fee_id = $1)',
        [feeId],
      );
      expect(Number(row!.credits)).toBe(500);
      expect((await h.request('GET', `/fees/${feeId}`, key)).body.data.state).toBe('settled');
    });

    test(`${PARALLEL} parallel orders with one Idempotency-Key: one order, cash spent once`, async () => {
      const key = await h.register('idempotent');
      const body = { market_id: conditionId(201), outcome: 'YES', side: 'buy', type: 'market', size: '10' };
      const responses = await Promise.all(
        Array.from({ length: PARALLEL }, () => h.request('POST', '/paper/orders', key, body, { 'idempotency-key': 'one-order' })),
      );
      expect(responses.filter((r) => r.status !== 201 && r.status !== 200).map((r) => `${r.status} ${r.body.error}`)).toEqual([]);
      expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
      expect(responses.filter((r) => r.status === 200).every((r) => r.headers.get('idempotent-replayed') === 'true')).toBe(true);
      expect(new Set(responses.map((r) => r.body.data.order_id)).size).toBe(1);
      const orders = await h.control.query<{ n: string }>(
        "SELECT count(*)::text AS n FROM paper_orders WHERE idempotency_key = 'one-order' AND account_id = (SELECT account_id FROM paper_orders WHERE order_id = $1)",
        [responses[0]!.body.data.order_id],
      );
      expect(orders[0]!.n).toBe('1');
      // 10 x 0.40 = 4 spent once (no fee on this market).
      expect((await h.request('GET', '/paper/account', key)).body.data.cash_usdc).toBe(9996);
      // The same key with another body is a conflict.
      const other = await h.request('POST', '/paper/orders', key, { ...body, size: '11' }, { 'idempotency-key': 'one-order' });
      expect(other.status).toBe(409);
      expect(other.body.error).toMatch(/Idempotency-Key/);
    });
  });
}

/** /fees/*: quote, settle (at most once), ledger history and one entry (services/fees/fee-ledger.ts, docs/FEES.md). */
import { queryOf } from '../http/query.js';
import { Router, type Request } from 'express';
import type { FeeLedger, QuoteInput } from './fee-ledger.js';
import { success } from '../http/envelope.js';
import { keysetPage } from '../http/keyset.js';

export function feeRoutes(ledger: FeeLedger): Router {
  const router = Router();
  const owner = (request: Request) => request.owner!.account_id;

  router.post('/fees/quote', async (request, response) => {
    response.status(201).json(success(await ledger.quote(owner(request), request.body as QuoteInput)));
  });

  router.get('/fees/ledger', async (request, response) => {
    const accountId = owner(request);
    const state = queryOf(request, 'listFees').state;
    response.json(
      await keysetPage(request, {
        filters: { state },
        shape: ['id'],
        fetch: (after, take) => ledger.list(accountId, state, after, take),
        keyOf: (fee) => [fee.seq],
        present: ({ seq: _seq, ...fee }) => fee,
      }),
    );
  });

  router.get('/fees/:fee_id', async (request, response) => {
    response.json(success(await ledger.get(owner(request), String(request.params.fee_id))));
  });

  router.post('/fees/:fee_id/settle', async (request, response) => {
    const txHash = typeof request.body?.tx_hash === 'string' ? request.body.tx_hash : undefined;
    const signature = typeof request.body?.payer_signature === 'string' ? request.body.payer_signature : undefined;
    response.json(success(await ledger.settle(owner(request), String(request.params.fee_id), txHash, signature)));
  });

  return router;
}

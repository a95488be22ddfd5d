/** /paper/*: the calling agent's paper account, orders, positions, fills and settlements (docs/SANDBOX.md). */
import { queryOf } from '../http/query.js';
import { Router, type Request } from 'express';
import type { PaperService } from './paper-service.js';
import type { OrderInput } from './place-order.js';
import { fillView, orderView, settlementView } from './views.js';
import { success } from '../http/envelope.js';
import { keysetPage } from '../http/keyset.js';

export function paperRoutes(paper: PaperService): Router {
  const router = Router();
  const owner = (request: Request) => request.owner!.account_id;

  router.get('/paper/account', async (request, response) => {
    response.json(success((await paper.valuation(owner(request))).account));
  });

  router.post('/paper/reset', async (request, response) => {
    response.json(success((await paper.reset(owner(request))).account));
  });

  router.post('/paper/orders', async (request, response) => {
    const key = request.header('idempotency-key') ?? null;
    const placed = await paper.place(owner(request), request.body as OrderInput, key);
    const body = await paper.present(placed.order);
    if (placed.replayed) response.setHeader('Idempotent-Replayed', 'true');
    response.status(placed.replayed ? 200 : 201).json(success(body));
  });

  router.get('/paper/orders', async (request, response) => {
    const accountId = owner(request);
    const epoch = await paper.epochOf(accountId, queryOf(request, 'listPaperOrders').epoch);
    const status = queryOf(request, 'listPaperOrders').status;
    response.json(
      await keysetPage(request, {
        filters: { status, epoch },
        shape: ['id'],
        fetch: (after, take) => paper.orders(accountId, epoch, status, after, take),
        keyOf: (order) => [order.seq],
        present: (order) => orderView(order),
      }),
    );
  });

  router.get('/paper/orders/:order_id', async (request, response) => {
    response.json(success(await paper.order(owner(request), String(request.params.order_id))));
  });

  router.post('/paper/orders/:order_id/cancel', async (request, response) => {
    response.json(success(await paper.cancel(owner(request), String(request.params.order_id))));
  });

  router.get('/paper/positions', async (request, response) => {
    const status = queryOf(request, 'listPaperPositions').status;
    response.json(success((await paper.valuation(owner(request), status)).positions));
  });

  router.get('/paper/fills', async (request, response) => {
    const accountId = owner(request);
    const epoch = await paper.epochOf(accountId, queryOf(request, 'listPaperFills').epoch);
    response.json(
      await keysetPage(request, {
        filters: { epoch },
        shape: ['id'],
        fetch: (after, take) => paper.fills(accountId, epoch, after, take),
        keyOf: (fill) => [fill.seq],
        present: fillView,
      }),
    );
  });

  router.get('/paper/settlements', async (request, response) => {
    const accountId = owner(request);
    const epoch = await paper.epochOf(accountId, queryOf(request, 'listPaperSettlements').epoch);
    response.json(
      await keysetPage(request, {
        filters: { epoch },
        shape: ['id'],
        fetch: (after, take) => paper.settlements(accountId, epoch, after, take),
        keyOf: (settlement) => [settlement.seq],
        present: settlementView,
      }),
    );
  });

  return router;
}

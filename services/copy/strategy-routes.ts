/** /strategies: the calling account's saved strategies (strategy_lab), each backtested when saved (docs/COPY.md). */
import { type Request, Router } from 'express';
import type { BacktestSettings } from './backtest/backtest-service.js';
import { Strategies, type StrategyInput, strategyView } from './strategies.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import type { ControlStore } from '../ports/control-store.js';
import { success } from '../http/envelope.js';
import { ApiError } from '../http/errors.js';
import { keysetPage } from '../http/keyset.js';

const ownerOf = (request: Request) => request.owner!.account_id;

export function strategyRoutes(
  control: ControlStore,
  store: AnalyticsStore,
  settings: BacktestSettings,
  clock: () => number,
  perAccount?: number,
): Router {
  const router = Router();
  const strategies = new Strategies(control, store, settings, clock, perAccount);

  router.post('/strategies', async (request, response) => {
    response.status(201).json(success(strategyView(await strategies.create(ownerOf(request), request.body as StrategyInput))));
  });

  router.get('/strategies', async (request, response) => {
    const accountId = ownerOf(request);
    response.json(
      await keysetPage(request, {
        filters: {},
        shape: ['id'],
        fetch: (after, take) => strategies.list(accountId, after ? String(after[0]) : null, take),
        keyOf: (s) => [s.id],
        present: strategyView,
      }),
    );
  });

  router.get('/strategies/:id', async (request, response) => {
    const found = await strategies.get(ownerOf(request), String(request.params.id));
    if (!found) throw ApiError.notFound('strategy not found');
    response.json(success(strategyView(found)));
  });

  router.patch('/strategies/:id', async (request, response) => {
    const updated = await strategies.update(ownerOf(request), String(request.params.id), request.body as Partial<StrategyInput>);
    if (!updated) throw ApiError.notFound('strategy not found');
    response.json(success(strategyView(updated)));
  });

  router.delete('/strategies/:id', async (request, response) => {
    if (!(await strategies.delete(ownerOf(request), String(request.params.id)))) throw ApiError.notFound('strategy not found');
    response.json(success({ id: Number(request.params.id), deleted: true }));
  });

  return router;
}

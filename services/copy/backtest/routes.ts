/** GET /backtest (query parameters) and POST /backtest (the same members as a JSON body, for long market lists). */
import { type Request, Router } from 'express';
import { type BacktestSettings, parseBacktest, runBacktest } from './backtest-service.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { success } from '../../http/envelope.js';
import { queryOf } from '../../http/query.js';

export function backtestRoutes(store: AnalyticsStore, settings: BacktestSettings, clock: () => number = Date.now): Router {
  const router = Router();
  const answer = async (input: Record<string, unknown>) => success(await runBacktest(store, parseBacktest(input, clock()), settings));
  router.get('/backtest', async (request: Request, response) => {
    response.json(await answer(queryOf(request, 'getBacktest')));
  });
  router.post('/backtest', async (request: Request, response) => {
    response.json(await answer(request.body as Record<string, unknown>));
  });
  return router;
}

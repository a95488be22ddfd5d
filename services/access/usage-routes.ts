/** GET /usage/history (calls, credits and refusals per UTC day) and GET /usage/refusals (the latest refused calls). */
import { queryOf } from '../http/query.js';
import { Router } from 'express';
import { recentRefusals, usageByDay } from './refusals.js';
import type { ControlStore } from '../ports/control-store.js';
import { success } from '../http/envelope.js';
import { keysetPage } from '../http/keyset.js';

export interface UsageHistoryOptions {
  control: ControlStore;
  clock: () => number;
}

export function usageHistoryRoutes({ control, clock }: UsageHistoryOptions): Router {
  const router = Router();

  router.get('/usage/history', async (request, response) => {
    const days = queryOf(request, 'getUsageHistory').days;
    response.json(success(await usageByDay(control, request.owner!.account_id, days, clock())));
  });

  router.get('/usage/refusals', async (request, response) => {
    response.json(
      await keysetPage(request, {
        filters: {},
        shape: ['id'],
        defaultLimit: 20,
        fetch: (after, take) => recentRefusals(control, request.owner!.account_id, take, after ? String(after[0]) : null),
        keyOf: (row) => [row.id],
        present: (row) => row,
      }),
    );
  });

  return router;
}

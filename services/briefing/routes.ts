/** GET /briefing: the agent heartbeat (services/briefing/briefing-service.ts). */
import { queryOf } from '../http/query.js';
import { Router } from 'express';
import type { BriefingService } from './briefing-service.js';
import { success } from '../http/envelope.js';

export function briefingRoutes(briefings: BriefingService): Router {
  const router = Router();
  router.get('/briefing', async (request, response) => {
    const owner = request.owner!;
    const { since, limit } = queryOf(request, 'getBriefing');
    response.json(success(await briefings.briefing({ accountId: owner.account_id, name: owner.name }, since, limit)));
  });
  return router;
}

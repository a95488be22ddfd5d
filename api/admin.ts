/** Operator endpoints under /admin, authenticated by the token in DATA_DIR/admin.json (not by API keys). */
import crypto from 'node:crypto';
import express, { Router } from 'express';
import type { AdminOperations } from '../services/admin/operations.js';
import { success } from './envelope.js';
import { ApiError } from './errors.js';

export function adminRoutes(operations: AdminOperations, adminToken: string): Router {
  const router = Router();
  const expected = crypto.createHash('sha256').update(adminToken).digest();
  router.use(express.json({ limit: '8kb' }));
  router.use((request, _response, next) => {
    const given = /^Bearer\s+(\S+)$/i.exec(request.get('authorization') ?? '')?.[1] ?? '';
    const digest = crypto.createHash('sha256').update(given).digest();
    if (!crypto.timingSafeEqual(digest, expected)) return next(ApiError.unauthorized('admin token required'));
    next();
  });
  router.post('/keys', async (request, response) => {
    const { name, tier } = request.body ?? {};
    // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
    if (typeof name !== 'string' || !name.trim() || /[\u0000-\u001f\u007f]/.test(name)) {
      throw ApiError.badRequest('name: must be a non-empty string without control characters');
    }
    if (!['1', '2', '3'].includes(String(tier))) throw ApiError.badRequest('tier: must be 1, 2 or 3');
    response.status(201).json(success(await operations.createKey(name.trim(), String(tier) as '1' | '2' | '3')));
  });
  router.post('/credits', async (request, response) => {
    const { api_key: apiKey, amount } = request.body ?? {};
    if (typeof apiKey !== 'string') throw ApiError.badRequest('api_key: required');
    if (typeof amount !== 'number' || !(amount > 0)) throw ApiError.badRequest('amount: must be a positive number');
    response.json(success(await asBadRequest(() => operations.addCredits(apiKey, amount))));
  });
  router.post('/tokens', async (request, response) => {
    const { api_key: apiKey, balance } = request.body ?? {};
    if (typeof apiKey !== 'string') throw ApiError.badRequest('api_key: required');
    if (typeof balance !== 'number' || !(balance >= 0)) throw ApiError.badRequest('balance: must be zero or more');
    response.json(success(await asBadRequest(() => operations.setTokens(apiKey, balance))));
  });
  return router;
}

async function asBadRequest<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw ApiError.badRequest((error as Error).message);
  }
}

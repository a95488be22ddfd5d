/**
 * The operator listener: /admin (authenticated by the token in DATA_DIR/admin.json, not by API keys)
 * and /metrics (Prometheus text, no key), served on their own loopback port (ADMIN_HOST/ADMIN_PORT)
 * so that exposing the public API never exposes them.
 */
import crypto from 'node:crypto';
import express, { Router } from 'express';
import type { AdminOperations, KeyReference } from '../services/admin/operations.js';
import { KeyLifecycleError } from '../services/control/key-lifecycle.js';
import type { Logger } from '../services/logger.js';
import { success } from '../services/http/envelope.js';
import { errorRenderer } from './error-renderer.js';
import { ApiError } from '../services/http/errors.js';
import { type MetricsSource, metricsRoutes } from './metrics.js';

export interface AdminAppOptions {
  /** Operator endpoints, when this process holds the admin token. */
  admin?: { operations: AdminOperations; token: string };
  metrics: MetricsSource;
  logger: Logger;
}

export function createAdminApp(options: AdminAppOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(metricsRoutes(options.metrics));
  if (options.admin) app.use('/admin', adminRoutes(options.admin.operations, options.admin.token));
  app.use((_request, _response, next) => next(ApiError.notFound('no such route')));
  app.use(errorRenderer(options.logger));
  return app;
}

function keyReference(body: Record<string, unknown>): KeyReference {
  if (typeof body.api_key === 'string') return { apiKey: body.api_key };
  if (typeof body.key_id === 'string' || typeof body.key_id === 'number') return { keyId: String(body.key_id) };
  throw ApiError.badRequest('api_key or key_id: required');
}

function adminRoutes(operations: AdminOperations, adminToken: string): Router {
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
  router.post('/keys/list', async (request, response) => {
    response.json(success(await asBadRequest(() => operations.listKeys(keyReference(request.body ?? {})))));
  });
  router.post('/keys/revoke', async (request, response) => {
    response.json(success(await asBadRequest(() => operations.revokeKey(keyReference(request.body ?? {})))));
  });
  router.post('/keys/rotate', async (request, response) => {
    const grace = Number(request.body?.expire_previous_in_seconds ?? 0);
    response.status(201).json(success(await asBadRequest(() => operations.rotateKey(keyReference(request.body ?? {}), grace))));
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
    if (error instanceof ApiError) throw error;
    if (error instanceof KeyLifecycleError && error.kind === 'conflict') throw new ApiError(409, 'CONFLICT', error.message);
    throw ApiError.badRequest((error as Error).message);
  }
}

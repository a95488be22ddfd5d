/**
 * The Express app (and a fast path for cached reads in front of it): OpenAPI document at
 * /api/openapi.yaml, requests validated against it,
 * bearer keys on every /v1 route but registration, one error renderer for the envelope.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../services/logger.js';
import type { AnalyticsStore } from '../services/ports/analytics-store.js';
import type { Meter } from '../services/access/meter.js';
import { RateLimiter } from '../services/access/rate-limit.js';
import type { AdminOperations } from '../services/admin/operations.js';
import type { Accounts } from '../services/control/accounts.js';
import type { ControlStore } from '../services/ports/control-store.js';
import type { SandboxApis } from '../services/sandbox/compose.js';
import type { MarketLookup } from '../services/ingest/market-lookup.js';
import { accessCheck, accessControl, type AccessCheck, type AccessPolicy } from './access.js';
import { adminRoutes } from './admin.js';
import { fastCachedReads, ReadCache, responseCache } from './response-cache.js';
import { docsRoutes } from './docs-page.js';
import { OwnerCache, requireApiKey } from './auth.js';
import { failure } from './envelope.js';
import { ApiError } from './errors.js';
import { type Operation, OperationIndex, readOperations } from './operations.js';
import { accountRoutes } from './routes/account.js';
import { agentRoutes } from './routes/agents.js';
import { briefingRoutes } from './routes/briefing.js';
import { backtestRoutes } from './routes/backtest.js';
import { copyRoutes } from './routes/copy.js';
import { strategyRoutes } from './routes/strategies.js';
import { feeRoutes } from './routes/fees.js';
import { paperRoutes } from './routes/paper.js';
import { walletRoutes } from './routes/wallet.js';
import { healthRoutes, type HealthInputs } from './routes/health.js';
import { metricsRoutes } from './metrics.js';
import { READ_MODELS } from '../services/read-models/registry.js';
import { webhookRoutes, type WebhooksApi } from './routes/webhooks.js';

export const OPENAPI_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), 'openapi.yaml');

export interface AppDependencies {
  store: AnalyticsStore;
  accounts: Accounts;
  /** The control store itself (agent topics; the sandbox services hold their own reference). */
  control: ControlStore;
  /** Paper trading, briefings, fees and wallet links; without it those routes answer 404. */
  sandbox?: SandboxApis;
  health: HealthInputs;
  logger: Logger;
  meter: Meter;
  access: AccessPolicy;
  authCacheTtlMs: number;
  limiter?: RateLimiter;
  /** Operator endpoints under /admin, when the process holds the admin token. */
  admin?: { operations: AdminOperations; token: string };
  /** Webhook subscriptions and deliveries; without it the /webhooks routes answer 404. */
  webhooks?: WebhooksApi;
  /** Looks up markets the catalog does not hold yet, bounded (GET /markets/{id}); without it they are 404. */
  marketLookup?: MarketLookup;
  /** The clock of records the API writes (copy subscriptions) and of default ranges; tests pin it. */
  clock?: () => number;
  /** Fee fallback of markets with fees on but no schedule (the paper-trading setting); without it /backtest answers 404. */
  feeFallback?: { rate: string; exponent: number };
  /** Public read responses are reused for this long (0 turns the cache off). */
  readCacheTtlMs?: number;
  /** Validate every response against the document too (tests turn this on). */
  validateResponses?: boolean;
}

export interface ApiHandler {
  app: express.Express;
  /** Node request listener: cached public reads answered ahead of Express, everything else by it. */
  listener: (request: http.IncomingMessage, response: http.ServerResponse) => void;
}

/** The Express app plus a request listener with the cached-read fast path in front of it. */
export function createApiHandler(deps: AppDependencies): ApiHandler {
  const owners = new OwnerCache(deps.accounts, deps.authCacheTtlMs);
  const operations = readOperations(OPENAPI_PATH);
  const cache = new ReadCache(deps.readCacheTtlMs ?? 0, new OperationIndex(operations));
  const check = accessCheck(deps.meter, deps.limiter ?? new RateLimiter(), deps.access);
  const app = buildApp(deps, owners, cache, check, operations);
  const fast = fastCachedReads(cache, owners, check);
  return {
    app,
    listener: (request, response) => {
      if (!fast(request, response)) app(request, response);
    },
  };
}

export function createApp(deps: AppDependencies): express.Express {
  return createApiHandler(deps).app;
}

function buildApp(
  deps: AppDependencies,
  owners: OwnerCache,
  cache: ReadCache,
  check: AccessCheck,
  operations: Operation[],
): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  const openapiText = fs.readFileSync(OPENAPI_PATH, 'utf8');

  app.get('/api/openapi.yaml', (_request, response) => {
    response.type('application/yaml').send(openapiText);
  });
  app.use(docsRoutes());

  if (deps.admin) app.use('/admin', adminRoutes(deps.admin.operations, deps.admin.token));
  // Prometheus scrape target, outside /v1 and the API document.
  app.use(metricsRoutes(deps.health, deps.store));
  app.use(express.json({ limit: '64kb' }));
  const authenticate = requireApiKey(owners);
  app.use('/v1', (request, response, next) => {
    // Registration is the one keyless route; everything else authenticates before validation,
    // so an anonymous caller learns nothing about parameters.
    if (request.path === '/agents/register') return next();
    return authenticate(request, response, next);
  });
  app.use('/v1', responseCache(cache, check));
  app.use(
    OpenApiValidator.middleware({
      apiSpec: OPENAPI_PATH,
      validateRequests: { allowUnknownQueryParameters: false, coerceTypes: true },
      validateResponses: deps.validateResponses ? { removeAdditional: false } : false,
      validateSecurity: false,
      ignoreUndocumented: false,
      ignorePaths: /^\/api\/(openapi\.yaml|docs)/,
    }),
  );
  app.use('/v1', accessControl(check));
  app.use('/v1', agentRoutes(deps.accounts, deps.meter, deps.access.thresholds, deps.control));
  if (deps.sandbox) {
    app.use('/v1', briefingRoutes(deps.sandbox.briefings));
    app.use('/v1', paperRoutes(deps.sandbox.paper));
    app.use('/v1', feeRoutes(deps.sandbox.fees));
    app.use('/v1', walletRoutes(deps.sandbox.wallet));
  }
  const clock = deps.clock ?? Date.now;
  app.use('/v1', copyRoutes(deps.control, clock));
  if (deps.feeFallback) {
    app.use('/v1', backtestRoutes(deps.store, { feeFallback: deps.feeFallback }, clock));
    app.use('/v1', strategyRoutes(deps.control, deps.store, { feeFallback: deps.feeFallback }, clock));
  }
  app.use('/v1', healthRoutes(deps.store, deps.health));
  app.use('/v1', accountRoutes({ meter: deps.meter, operations, ...deps.access }));
  for (const model of READ_MODELS) if (model.routes) app.use('/v1', model.routes({ store: deps.store, marketLookup: deps.marketLookup }));
  if (deps.webhooks) app.use('/v1', webhookRoutes(deps.webhooks));

  app.use((_request, _response, next) => next(ApiError.notFound('no such route')));
  app.use(errorRenderer(deps.logger));
  return app;
}

interface ValidatorError {
  status?: number;
  errors?: Array<{ path?: string; message?: string; errorCode?: string }>;
  message?: string;
  type?: string;
}

function errorRenderer(logger: Logger) {
  return (error: unknown, request: Request, response: Response, _next: NextFunction) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500) logger.error({ err: error, path: request.path }, 'request failed');
    response.status(apiError.status).json(failure(apiError.code, apiError.message, apiError.reason));
  };
}

function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const e = error as ValidatorError;
  if (e?.type === 'entity.parse.failed') return ApiError.badRequest('body: not valid JSON');
  if (e?.type === 'entity.too.large') return ApiError.badRequest('body: larger than 64 KB');
  if (e?.status === 400 || e?.status === 415) {
    const detail = (e.errors ?? [])
      .map((item) => `${(item.path ?? '').replace(/^[./](query|params|path|body|headers)[./]?/, '') || 'body'}: ${item.message}`)
      .join('; ');
    return ApiError.badRequest(detail || e.message || 'bad request');
  }
  if (e?.status === 404) return ApiError.notFound('no such route');
  if (e?.status === 405) return new ApiError(405, 'METHOD_NOT_ALLOWED', 'method not allowed on this route');
  if (e?.status === 500 && Array.isArray(e.errors) && e.errors.some((i) => i.path?.startsWith('.response'))) {
    return new ApiError(500, 'INTERNAL_ERROR', `response does not match the API document: ${e.message}`);
  }
  return new ApiError(500, 'INTERNAL_ERROR', 'internal error');
}

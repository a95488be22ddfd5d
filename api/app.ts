/**
 * The Express app (and a fast path for cached reads in front of it): OpenAPI document at
 * /api/openapi.yaml, requests validated against it, bearer keys on every /v1 route but registration,
 * one error renderer for the envelope. Operator endpoints (/admin, /metrics) are a separate app on
 * their own port (api/admin.ts).
 */
import express from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Meter } from '../services/access/meter.js';
import { RateLimiter } from '../services/access/rate-limit.js';
import type { RegistrationLimits } from '../services/access/registration-limits.js';
import type { Accounts } from '../services/control/accounts.js';
import type { KeyLifecycle } from '../services/control/key-lifecycle.js';
import type { Logger } from '../services/logger.js';
import type { AnalyticsStore } from '../services/ports/analytics-store.js';
import { READ_MODELS } from '../services/read-models/registry.js';
import { type AccessCheck, type AccessPolicy, accessCheck, accessControl, fastRateRefusal, type RateShare } from './access.js';
import { AuthThrottle, bearerKey, OwnerCache, requireApiKey } from './auth.js';
import type { ControlStore } from '../services/ports/control-store.js';
import type { SandboxApis } from '../services/sandbox/compose.js';
import type { MarketLookup } from '../services/ingest/market-lookup.js';
import { docsRoutes } from './docs-page.js';
import { errorRenderer, sendError } from './error-renderer.js';
import { ApiError } from './errors.js';
import { type Operation, OperationIndex, readOperations } from './operations.js';
import { fastCachedReads, ReadCache, responseCache } from './response-cache.js';
import { accountRoutes } from './routes/account.js';
import { agentRoutes } from './routes/agents.js';
import { type HealthInputs, healthRoutes } from './routes/health.js';
import { keyRoutes } from './routes/keys.js';
import { type WebhooksApi, webhookRoutes } from './routes/webhooks.js';
import { briefingRoutes } from './routes/briefing.js';
import { backtestRoutes } from './routes/backtest.js';
import { copyRoutes } from './routes/copy.js';
import { strategyRoutes } from './routes/strategies.js';
import { feeRoutes } from './routes/fees.js';
import { paperRoutes } from './routes/paper.js';
import { walletRoutes } from './routes/wallet.js';

export const OPENAPI_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), 'openapi.yaml');

export interface AuthSettings {
  cacheTtlMs: number;
  negativeCacheTtlMs: number;
  failuresPerIpPerMinute: number;
  /** Proxies whose X-Forwarded-For is trusted for the client address (0: none). */
  trustProxyHops: number;
}

export interface ReadCacheSettings {
  /** Shared read responses are reused for this long (0 turns the cache off). */
  ttlMs: number;
  maxEntries: number;
  maxBytes: number;
}

export interface AppDependencies {
  store: AnalyticsStore;
  accounts: Accounts;
  keys: KeyLifecycle;
  /** The control store itself (agent topics; the sandbox services hold their own reference). */
  control: ControlStore;
  /** Paper trading, briefings, fees and wallet links; without it those routes answer 404. */
  sandbox?: SandboxApis;
  health: HealthInputs;
  logger: Logger;
  meter: Meter;
  access: AccessPolicy;
  auth: AuthSettings;
  /** Registration limits (per address and in total); none: unlimited. */
  registrations?: RegistrationLimits;
  /** This process's share of the per-key rate (1 / API processes running); default 1. */
  rateShare?: RateShare;
  limiter?: RateLimiter;
  /** Webhook subscriptions and deliveries; without it the /webhooks routes answer 404. */
  webhooks?: WebhooksApi;
  readCache?: ReadCacheSettings;
  /** Looks up markets the catalog does not hold yet, bounded (GET /markets/{id}); without it they are 404. */
  marketLookup?: MarketLookup;
  /** The clock of records the API writes (copy subscriptions) and of default ranges; tests pin it. */
  clock?: () => number;
  /** Fee fallback of markets with fees on but no schedule (the paper-trading setting); without it /backtest answers 404. */
  feeFallback?: { rate: string; exponent: number };
  /** Validate every response against the document too (tests turn this on). */
  validateResponses?: boolean;
}

export interface ApiHandler {
  app: express.Express;
  /** Node request listener: cached public reads answered ahead of Express, everything else by it. */
  listener: (request: http.IncomingMessage, response: http.ServerResponse) => void;
  owners: OwnerCache;
  cache: ReadCache;
}

/** The Express app plus a request listener with the cached-read fast path in front of it. */
export function createApiHandler(deps: AppDependencies): ApiHandler {
  const owners = new OwnerCache(deps.accounts, { ttlMs: deps.auth.cacheTtlMs, negativeTtlMs: deps.auth.negativeCacheTtlMs });
  const operations = readOperations(OPENAPI_PATH);
  const cache = new ReadCache(deps.readCache ?? { ttlMs: 0, maxEntries: 1, maxBytes: 1 }, new OperationIndex(operations));
  const limiter = deps.limiter ?? new RateLimiter();
  const check = accessCheck(deps.meter, limiter, deps.access, deps.rateShare);
  const app = buildApp(deps, owners, cache, check, operations);
  const fast = fastCachedReads(cache, owners, check);
  const refusal = fastRateRefusal(deps.meter, limiter, deps.access, deps.rateShare);
  return {
    app,
    owners,
    cache,
    listener: (request, response) => {
      // A known key over its rate is refused here, before routing and validation: a flood costs little.
      const owner = request.url?.startsWith('/v1/') ? owners.peek(bearerKey(request.headers.authorization) ?? '') : undefined;
      const refused = owner ? refusal(owner.account_id) : null;
      if (refused) return sendError(response, refused, undefined, request.url ?? '');
      if (!fast(request, response)) app(request, response);
    },
  };
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

  app.use(express.json({ limit: '64kb' }));
  const authenticate = requireApiKey(
    owners,
    new AuthThrottle({ failuresPerIpPerMinute: deps.auth.failuresPerIpPerMinute }),
    deps.auth.trustProxyHops,
  );
  app.use('/v1', (request, response, next) => {
    // Registration is the one keyless route; everything else authenticates before validation,
    // so an anonymous caller learns nothing about parameters.
    if (request.path.toLowerCase() === '/agents/register') return next();
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
  app.use(
    '/v1',
    agentRoutes({
      accounts: deps.accounts,
      meter: deps.meter,
      thresholds: deps.access.thresholds,
      registrations: deps.registrations,
      trustProxyHops: deps.auth.trustProxyHops,
      control: deps.control,
    }),
  );
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
  app.use('/v1', keyRoutes({ keys: deps.keys, meter: deps.meter, thresholds: deps.access.thresholds, owners }));
  for (const model of READ_MODELS) if (model.routes) app.use('/v1', model.routes({ store: deps.store, marketLookup: deps.marketLookup }));
  if (deps.webhooks) app.use('/v1', webhookRoutes(deps.webhooks));

  app.use((_request, _response, next) => next(ApiError.notFound('no such route')));
  app.use(errorRenderer(deps.logger));
  return app;
}

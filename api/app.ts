/**
 * The Express app (and a fast path for cached reads in front of it): OpenAPI document at
 * /api/openapi.yaml (the streams' AsyncAPI document, generated from it, at /api/asyncapi.yaml),
 * requests validated against it, the web UI under /app (a client of /v1 like any other), keys
 * (bearer or session cookie) on every /v1 route but the keyless ones, one error renderer for the
 * envelope. Operator endpoints (/admin, /metrics) are a separate app on their own
 * port (api/admin.ts).
 */
import express from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Meter } from '../services/access/meter.js';
import { RateLimiter } from '../services/access/rate-limit.js';
import type { Refusal, RefusalLog } from '../services/access/refusals.js';
import type { RegistrationLimits } from '../services/access/registration-limits.js';
import type { Accounts } from '../services/control/accounts.js';
import type { KeyLifecycle } from '../services/control/key-lifecycle.js';
import type { Logger } from '../services/logger.js';
import type { AnalyticsStore } from '../services/ports/analytics-store.js';
import { type AccessCheck, type AccessPolicy, accessCheck, accessControl, fastRateRefusal, type RateShare } from './access.js';
import { AuthThrottle, bearerKey, clientAddress, OwnerCache, requireApiKey } from './auth.js';
import type { ControlStore } from '../services/ports/control-store.js';
import type { SandboxApis } from '../services/sandbox/compose.js';
import type { MarketLookup } from '../services/ingest/market-lookup.js';
import { docsRoutes } from './docs-page.js';
import { errorRenderer, sendError } from './error-renderer.js';
import { ApiError } from '../services/http/errors.js';
import { numericQueryCheck } from './numeric-params.js';
import { type Operation, OperationIndex, readOperations } from './operations.js';
import { fastCachedReads, ReadCache, responseCache } from './response-cache.js';
import { accountRoutes } from './routes/account.js';
import { agentRoutes } from './routes/agents.js';
import { developerRoutes } from './routes/developers.js';
import { sessionRoutes } from './routes/session.js';
import { WebUi } from './webui/web-ui.js';
import { type HealthInputs, healthRoutes } from './routes/health.js';
import { catalogNotice } from '../services/ingest/catalog-notice.js';
import { keyRoutes } from './routes/keys.js';
import type { WebhooksApi } from '../services/webhooks/subscriptions.js';
import type { ExportsApi } from '../services/exports/routes.js';
import type { ModuleServices } from '../services/modules/module.js';
import { SERVICE_MODULES } from '../services/modules/registry.js';
import type { Duplex } from 'node:stream';
import { sseRoutes } from './streams/sse.js';
import type { StreamService } from '../services/streams/stream-service.js';
import { streamUpgrade } from './streams/websocket.js';

export const OPENAPI_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), 'openapi.yaml');
/** The streams' AsyncAPI document, generated from the OpenAPI one (`npm run gen`). */
const ASYNCAPI_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), 'asyncapi.yaml');

interface AuthSettings {
  cacheTtlMs: number;
  negativeCacheTtlMs: number;
  failuresPerIpPerMinute: number;
  /** Failed authentications per /24 (IPv4) or /64 (IPv6) per minute (default 10 x the per-address limit). */
  failuresPerPrefixPerMinute?: number;
  /** Proxies whose X-Forwarded-For is trusted for the client address (0: none). */
  trustProxyHops: number;
}

interface ReadCacheSettings {
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
  /** Copy subscriptions and strategies one account may keep (COPY_SUBSCRIPTIONS_PER_ACCOUNT, STRATEGIES_PER_ACCOUNT); unlimited without. */
  copyLimits?: { subscriptionsPerAccount: number; strategiesPerAccount: number };
  /** The clock of records the API writes (copy subscriptions) and of default ranges; tests pin it. */
  clock?: () => number;
  /** Fee fallback of markets with fees on but no schedule (the paper-trading setting); without it /backtest answers 404. */
  feeFallback?: { rate: string; exponent: number };
  /** GET /copy-picks' default min_resolved (COPY_PICKS_MIN_RESOLVED). */
  copyPicksMinResolved?: number;
  /** Validate every response against the document too (tests turn this on). */
  validateResponses?: boolean;
  /** Usage per day and refused calls (GET /usage/history, /usage/refusals); without it those answer 404. */
  usageHistory?: { control: ControlStore; refusals: RefusalLog; clock?: () => number };
  /** Lifetime of the web UI's session cookie (default 12 h). */
  sessionMaxAgeSeconds?: number;
  /** Live streams over the event log (/v1/stream, /v1/stream/sse); without it they answer 404. */
  streams?: StreamService;
  /** Bulk exports (/v1/exports); without it those routes answer 404. */
  exports?: ExportsApi;
}

export interface ApiHandler {
  app: express.Express;
  /** Node request listener: cached public reads answered ahead of Express, everything else by it. */
  listener: (request: http.IncomingMessage, response: http.ServerResponse) => void;
  owners: OwnerCache;
  cache: ReadCache;
  /** The web UI's assets (built on first use; `prepare()` builds them ahead). */
  webui: WebUi;
  /** Node `upgrade` listener: the WebSocket stream (/v1/stream); absent without streams. */
  upgrade?: (request: http.IncomingMessage, socket: Duplex, head: Buffer) => void;
}

/** The web UI session's default lifetime: a working day, after which the key is asked for again. */
const DEFAULT_SESSION_MAX_AGE_SECONDS = 12 * 3600;

/** Keyless /v1 operations: registration, developer sign-up and turning a key into a session. */
const KEYLESS = new Set(['POST /agents/register', 'POST /developers/register', 'POST /session']);
/** Export downloads: a signed, expiring link is the authority (services/exports/routes.ts). */
const KEYLESS_DOWNLOAD = /^GET \/exports\/[^/]+\/download$/;

/** The Express app plus a request listener with the cached-read fast path in front of it. */
export function createApiHandler(deps: AppDependencies): ApiHandler {
  const owners = new OwnerCache(deps.accounts, { ttlMs: deps.auth.cacheTtlMs, negativeTtlMs: deps.auth.negativeCacheTtlMs });
  const operations = readOperations(OPENAPI_PATH);
  const cache = new ReadCache(deps.readCache ?? { ttlMs: 0, maxEntries: 1, maxBytes: 1 }, new OperationIndex(operations));
  const limiter = deps.limiter ?? new RateLimiter();
  const addressOf = (request: http.IncomingMessage) => clientAddress(request, deps.auth.trustProxyHops);
  const check = recordingRefusals(accessCheck(deps.meter, limiter, deps.access, addressOf, deps.rateShare), deps.usageHistory?.refusals);
  const throttle = new AuthThrottle({
    failuresPerIpPerMinute: deps.auth.failuresPerIpPerMinute,
    failuresPerPrefixPerMinute: deps.auth.failuresPerPrefixPerMinute,
  });
  const webui = new WebUi(deps.logger);
  const app = buildApp(deps, owners, cache, check, operations, throttle, webui);
  const fast = fastCachedReads(cache, owners, check);
  const refusal = fastRateRefusal(deps.meter, limiter, deps.access, deps.rateShare);
  const upgrade = deps.streams
    ? streamUpgrade({
        service: deps.streams,
        owners,
        throttle,
        meter: deps.meter,
        thresholds: deps.access.thresholds,
        trustProxyHops: deps.auth.trustProxyHops,
      })
    : undefined;
  return {
    app,
    owners,
    cache,
    webui,
    ...(upgrade ? { upgrade: (request, socket, head) => void upgrade(request, socket, head) } : {}),
    listener: (request, response) => {
      // A known key over its rate is refused here, before routing and validation: a flood costs little.
      const owner = request.url?.startsWith('/v1/') ? owners.peek(bearerKey(request.headers.authorization) ?? '') : undefined;
      const refused = owner ? refusal(owner.account_id, addressOf(request)) : null;
      if (refused && owner) {
        // Bounded: past its buffer the log only counts (services/access/refusals.ts), so a flood stays cheap.
        deps.usageHistory?.refusals.record(refusalOf(owner.account_id, refused, request.method ?? 'GET', request.url ?? ''));
        return sendError(response, refused, undefined, request.url ?? '');
      }
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
  throttle: AuthThrottle,
  webui: WebUi,
): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  // One index of the document's operations for the numeric-query check and the error renderer.
  const index = new OperationIndex(operations);
  const openapiText = fs.readFileSync(OPENAPI_PATH, 'utf8');
  const asyncapiText = fs.readFileSync(ASYNCAPI_PATH, 'utf8');

  app.get('/api/openapi.yaml', (_request, response) => {
    response.type('application/yaml').send(openapiText);
  });
  app.get('/api/asyncapi.yaml', (_request, response) => {
    response.type('application/yaml').send(asyncapiText);
  });
  app.use(docsRoutes());
  app.use(webui.routes({ owners, throttle, trustProxyHops: deps.auth.trustProxyHops }));

  app.use(express.json({ limit: '64kb' }));
  const authenticate = requireApiKey(owners, throttle, deps.auth.trustProxyHops);
  app.use('/v1', (request, response, next) => {
    // Everything but the keyless operations authenticates before validation, so an anonymous
    // caller learns nothing about parameters (Express routes case-insensitively, so this matches so too).
    const route = `${request.method} ${request.path.toLowerCase()}`;
    if (KEYLESS.has(route) || KEYLESS_DOWNLOAD.test(route)) return next();
    return authenticate(request, response, next);
  });
  app.use('/v1', responseCache(cache, check));
  app.use('/v1', numericQueryCheck(index));
  app.use(
    OpenApiValidator.middleware({
      apiSpec: OPENAPI_PATH,
      // Query and path parameters are always coerced (after numericQueryCheck); a JSON body is taken as typed,
      // so a string such as "0x10" where a number is declared is a 400, not 16 (issue 59, low).
      validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
      validateResponses: deps.validateResponses ? { removeAdditional: false } : false,
      validateSecurity: false,
      ignoreUndocumented: false,
      ignorePaths: /^\/api\/(openapi\.yaml|asyncapi\.yaml|docs)/,
    }),
  );
  app.use('/v1', accessControl(check));
  // The shell's own routes (registration, sessions, keys, account, health, streams), then every
  // service module's (services/modules/registry.ts).
  const services = moduleServices(deps, throttle);
  for (const router of [
    ...shellRoutes(deps, owners, throttle, operations),
    ...SERVICE_MODULES.flatMap((module) => module.routes(services)),
  ])
    app.use('/v1', router);

  app.use((_request, _response, next) => next(ApiError.notFound('no such route')));
  app.use(errorRenderer(deps.logger, index));
  return app;
}

/** The routes the HTTP shell serves itself: they need its key cache, throttle or operation index. */
function shellRoutes(deps: AppDependencies, owners: OwnerCache, throttle: AuthThrottle, operations: Operation[]): express.Router[] {
  const { accounts, meter, registrations } = deps;
  const { thresholds } = deps.access;
  const { trustProxyHops } = deps.auth;
  const routers = [
    agentRoutes({ accounts, meter, thresholds, registrations, trustProxyHops, control: deps.control }),
    developerRoutes({ accounts, registrations, trustProxyHops }),
    sessionRoutes({
      accounts,
      owners,
      meter,
      thresholds,
      maxAgeSeconds: deps.sessionMaxAgeSeconds ?? DEFAULT_SESSION_MAX_AGE_SECONDS,
      throttle,
      trustProxyHops,
    }),
    healthRoutes(deps.store, deps.health),
    accountRoutes({ meter, operations, ...deps.access }),
    keyRoutes({ keys: deps.keys, meter, thresholds, owners }),
  ];
  if (deps.streams) {
    routers.push(sseRoutes(deps.streams, { meter, thresholds }));
    routers.push(
      express.Router().get('/stream', () => {
        throw ApiError.badRequest('GET /v1/stream is a WebSocket: send Connection: Upgrade and Upgrade: websocket (or use /v1/stream/sse)');
      }),
    );
  }
  return routers;
}

/** What the service modules' routes are built from (services/modules/module.ts). */
function moduleServices(deps: AppDependencies, throttle: AuthThrottle): ModuleServices {
  const addressOf = (request: http.IncomingMessage) => clientAddress(request, deps.auth.trustProxyHops);
  return {
    store: deps.store,
    control: deps.control,
    clock: deps.clock ?? Date.now,
    marketLookup: deps.marketLookup,
    copyPicksMinResolved: deps.copyPicksMinResolved,
    catalogNotice: () => catalogNotice(deps.health.sources(), deps.health.upstreams?.() ?? []),
    sandbox: deps.sandbox,
    webhooks: deps.webhooks,
    exports: deps.exports && { api: deps.exports, guard: { throttle, addressOf } },
    usageHistory: deps.usageHistory && { control: deps.usageHistory.control, clock: deps.usageHistory.clock ?? Date.now },
    copyLimits: deps.copyLimits,
    feeFallback: deps.feeFallback,
  };
}

/** Records the calls an access check refuses with 402 or 429, for GET /usage/history and /usage/refusals. */
function recordingRefusals(check: AccessCheck, refusals: RefusalLog | undefined): AccessCheck {
  if (!refusals) return check;
  return async (request, response, operation) => {
    try {
      await check(request, response, operation);
    } catch (error) {
      const owner = request.owner;
      if (owner && error instanceof ApiError && (error.status === 402 || error.status === 429)) {
        // The fast path hands a bare node request (no originalUrl).
        const url = (request as { originalUrl?: string }).originalUrl ?? request.url;
        refusals.record(refusalOf(owner.account_id, error, request.method, url));
      }
      throw error;
    }
  };
}

/** The log entry of a 402/429 refusal; the query string is not kept. */
function refusalOf(accountId: string, error: ApiError, method: string, url: string): Refusal {
  return {
    accountId,
    status: error.status as 402 | 429,
    code: error.code,
    method,
    path: url.split('?', 1)[0]!,
    reason: error.message,
  };
}

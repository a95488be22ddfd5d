/**
 * A service module owns the `/v1` routes of its domain (the read models own theirs through their
 * definition, `read-models/read-model.ts`); `registry.ts` lists every module and the API shell mounts
 * what it lists. A module whose service this process does not run answers no routes, so its paths are
 * a 404 from the shell.
 */
import type { Router } from 'express';
import type { WebhooksApi } from '../webhooks/subscriptions.js';
import type { DownloadGuard, ExportsApi } from '../exports/routes.js';
import type { ControlStore } from '../ports/control-store.js';
import type { RouteContext } from '../read-models/read-model.js';
import type { SandboxApis } from '../sandbox/compose.js';

/** What the modules' routes are built from: the stores and the services this process composed. */
export interface ModuleServices extends RouteContext {
  control: ControlStore;
  /** The clock of records the routes write (copy subscriptions, strategies) and of default ranges; tests pin it. */
  clock: () => number;
  /** Paper trading, briefings, fees and wallet links. */
  sandbox?: SandboxApis;
  /** Webhook subscriptions and deliveries. */
  webhooks?: WebhooksApi;
  /** Bulk exports, and what bounds their keyless downloads. */
  exports?: { api: ExportsApi; guard: DownloadGuard };
  /** Usage per day and refused calls (GET /usage/history, /usage/refusals). */
  usageHistory?: { control: ControlStore; clock: () => number };
  /** Copy subscriptions and strategies one account may keep; unlimited without. */
  copyLimits?: { subscriptionsPerAccount: number; strategiesPerAccount: number };
  /** Fee fallback of markets with fees on but no schedule: backtests and strategies need it. */
  feeFallback?: { rate: string; exponent: number };
}

export interface ServiceModule {
  name: string;
  /** The module's routers, mounted under /v1; none when this process does not run its service. */
  routes(services: ModuleServices): Router[];
}

export function defineModule<const M extends ServiceModule>(module: M): M {
  return module;
}

/**
 * /keys: the calling account's API keys. Listed by their safe prefix with the account's tier, when
 * they were made and last used; another key can be added (shown once), a key rotated (the new key
 * shown once, the old one working on for an optional grace period) or revoked. Revocations reach
 * this process at once and the others within AUTH_CACHE_TTL_MS.
 * A key in its rotation grace period may list keys but not add, rotate or revoke any: a leaked key
 * that was rotated away would otherwise mint itself a successor without an end, or revoke the new key.
 */
import { queryOf } from '../../services/http/query.js';
import { type NextFunction, type Request, type Response, Router } from 'express';
import type { Meter } from '../../services/access/meter.js';
import { tierName, type TierThresholds } from '../../services/access/tiers.js';
import { KeyLifecycleError, type KeyLifecycle, type KeyRecord } from '../../services/control/key-lifecycle.js';
import type { OwnerCache } from '../auth.js';
import { decodeCursor, encodeCursor, queryFingerprint } from '../../services/http/cursor.js';
import { page, success } from '../../services/http/envelope.js';
import { ApiError } from '../../services/http/errors.js';

export interface KeyRouteOptions {
  keys: KeyLifecycle;
  meter: Meter;
  thresholds: TierThresholds;
  owners: OwnerCache;
}

async function lifecycle<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof KeyLifecycleError)
      throw error.kind === 'not_found'
        ? ApiError.notFound(error.message)
        : error.kind === 'forbidden'
          ? new ApiError(403, 'FORBIDDEN', error.message)
          : new ApiError(409, 'CONFLICT', error.message);
    throw error;
  }
}

/** The refusal for a key that is on its way out (rotated, in its grace period), else null. */
function expiringKeyRefusal(request: Request): ApiError | null {
  const expiresAt = request.owner?.expires_at_ms;
  if (expiresAt === null || expiresAt === undefined) return null;
  return new ApiError(
    403,
    'FORBIDDEN',
    `this key was rotated and stops working at ${new Date(expiresAt).toISOString()}; in its grace period it can read but not manage keys: use the new key`,
  );
}

export function keyRoutes({ keys, meter, thresholds, owners }: KeyRouteOptions): Router {
  const router = Router();
  const accountOf = (request: Request) => request.owner!.account_id;
  const manage = (request: Request, _response: Response, next: NextFunction) => next(expiringKeyRefusal(request) ?? undefined);
  const present = async (request: Request, records: KeyRecord[]) => {
    const tier = tierName(await meter.standing(accountOf(request)), thresholds);
    return records.map(({ account_id: _account, ...record }) => ({ ...record, tier, current: record.id === request.owner!.key_id }));
  };

  router.get('/keys', async (request, response) => {
    const query = queryOf(request, 'listKeys');
    const limit = query.limit;
    const includeRevoked = query.status === 'all';
    const fingerprint = queryFingerprint({ status: query.status });
    const after = query.cursor ? decodeCursor(query.cursor, fingerprint, ['id']) : null;
    const rows = await keys.list(accountOf(request), { includeRevoked, limit: limit + 1, beforeId: after ? String(after[0]) : null });
    const served = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    response.json(
      page(await present(request, served), {
        limit,
        has_more: hasMore,
        next_cursor: hasMore ? encodeCursor([served[served.length - 1]!.id], fingerprint) : null,
      }),
    );
  });

  router.post('/keys', manage, async (request, response) => {
    const label = typeof request.body?.label === 'string' ? request.body.label.trim() || null : null;
    const created = await lifecycle(() => keys.create(accountOf(request), label, request.owner!.key_id));
    const [shown] = await present(request, [created]);
    // The only time the key is shown.
    response.status(201).json(success({ ...shown!, api_key: created.api_key }));
  });

  router.post('/keys/:id/rotate', manage, async (request, response) => {
    const grace = Number(request.body?.expire_previous_in_seconds ?? 0);
    const { key, previous } = await lifecycle(() =>
      keys.rotate(accountOf(request), String(request.params.id), grace, request.owner!.key_id),
    );
    owners.forgetKeys([previous.id]);
    const [shown, old] = await present(request, [key, previous]);
    response.status(201).json(success({ ...shown!, api_key: key.api_key, previous: old! }));
  });

  router.post('/keys/:id/revoke', manage, async (request, response) => {
    const revoked = await lifecycle(() =>
      keys.revoke(accountOf(request), String(request.params.id), { allowLast: false, actingKeyId: request.owner!.key_id }),
    );
    owners.forgetKeys([revoked.id]);
    const [shown] = await present(request, [revoked]);
    response.json(success(shown!));
  });

  return router;
}

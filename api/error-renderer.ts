/**
 * The one place errors become responses: every route, middleware and the cached-read fast path
 * throw, and this maps what was thrown to the envelope. ApiErrors carry their own status and code;
 * validator errors are 400s naming the parameter; analytics and control-store failures are mapped
 * by kind (services/analytics/store-errors.ts) so a limit or an outage says why instead of a 500.
 */
import type { NextFunction, Request, Response } from 'express';
import type { ServerResponse } from 'node:http';
import { AnalyticsBusyError, storeErrorKind } from '../services/analytics/store-errors.js';
import type { Logger } from '../services/logger.js';
import { failure } from '../services/http/envelope.js';
import { ApiError } from '../services/http/errors.js';
import type { OperationIndex } from './operations.js';

interface ValidatorError {
  status?: number;
  errors?: Array<{ path?: string; message?: string; errorCode?: string }>;
  message?: string;
  type?: string;
}

/** Where a body field refused as unknown belongs instead (`filters.from`), when the operation has one. */
type BodyFieldHint = (field: string) => string | undefined;

export function toApiError(error: unknown, hint?: BodyFieldHint): ApiError {
  if (error instanceof ApiError) return error;
  const kind = storeErrorKind(error);
  if (kind === 'too_broad')
    return ApiError.badRequest(
      'query too broad: it would read or return more rows than a request may; narrow from/to or filter by market or wallet',
    );
  if (kind === 'too_slow')
    return ApiError.unavailable(
      'query exceeded its time or memory limit (the engine is busy or the request asks for a lot); retry, or narrow the request',
      1,
    );
  if (kind === 'busy') {
    const busy = error as AnalyticsBusyError;
    return busy.reason === 'lane_full' ? ApiError.rateLimited(busy.message, busy.retryAfterSeconds) : ApiError.unavailable(busy.message, 1);
  }
  if (kind === 'unavailable') return ApiError.unavailable('a data store is unavailable; retry shortly', 5);
  const e = error as ValidatorError;
  if (e?.type === 'entity.parse.failed') return ApiError.badRequest('body: not valid JSON');
  if (e?.type === 'entity.too.large') return ApiError.badRequest('body: larger than 64 KB');
  if (e?.status === 400 || e?.status === 415) {
    const detail = (e.errors ?? [])
      .map((item) => {
        const name = (item.path ?? '').replace(/^[./](query|params|path|body|headers)[./]?/, '') || 'body';
        const belongs = item.errorCode === 'additionalProperties.openapi.validation' ? hint?.(name) : undefined;
        return belongs ? `${name}: not a field of the body; it belongs in ${belongs}` : `${name}: ${item.message}`;
      })
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

/** Writes the envelope for `error` on a bare node:http response (the fast path) or an Express one. */
export function sendError(response: ServerResponse, error: unknown, logger: Logger | undefined, path: string, hint?: BodyFieldHint): void {
  const apiError = toApiError(error, hint);
  if (apiError.status >= 500 && apiError.code === 'INTERNAL_ERROR') logger?.error({ err: error, path }, 'request failed');
  // A caller who closed the request is not the service refusing it: a burst of hang-ups would fill the log.
  else if (apiError.status >= 500 && !(error instanceof AnalyticsBusyError && error.reason === 'caller_gone'))
    logger?.warn({ err: error, path }, 'request refused: dependency unavailable or over its limit');
  if (response.headersSent) {
    response.destroy();
    return;
  }
  if (apiError.retryAfterSeconds !== undefined) response.setHeader('Retry-After', String(apiError.retryAfterSeconds));
  for (const [name, value] of Object.entries(apiError.headers)) response.setHeader(name, value);
  response.statusCode = apiError.status;
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  response.end(JSON.stringify(failure(apiError.code, apiError.message, apiError.reason)));
}

/** `operations` (the API document's) lets a refused unknown body field name where it belongs. */
export function errorRenderer(logger: Logger, operations?: OperationIndex) {
  return (error: unknown, request: Request, response: Response, _next: NextFunction) =>
    sendError(response, error, logger, request.path, (field) =>
      operations?.match(request.method, request.originalUrl)?.operation.nestedBodyFields.get(field),
    );
}

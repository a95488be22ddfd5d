/** An ApiError (or anything thrown) as the `error` message of a stream, naming the parameter at fault. */
import { toApiError } from '../error-renderer.js';
import type { StreamError } from '../../services/http/types.generated.js';

const CODES: Record<number, StreamError['code']> = {
  400: 'bad_request',
  401: 'unauthorized',
  402: 'payment_required',
  403: 'forbidden',
  404: 'not_found',
  410: 'cursor_expired',
  429: 'limit_reached',
};

export function streamErrorOf(error: unknown, subscription: string | null): StreamError {
  const apiError = toApiError(error);
  // Messages that blame a parameter start with its name ("filters.side: must be buy or sell").
  const parameter =
    apiError.status === 400 || apiError.status === 404 || apiError.status === 410
      ? (/^([\w.-]+): /.exec(apiError.message)?.[1] ?? null)
      : null;
  return {
    type: 'error',
    code: CODES[apiError.status] ?? 'unavailable',
    message: apiError.message,
    parameter,
    subscription,
    cursor: null,
  };
}

export function streamError(
  code: StreamError['code'],
  message: string,
  parameter: string | null = null,
  subscription: string | null = null,
): StreamError {
  return { type: 'error', code, message, parameter, subscription, cursor: null };
}

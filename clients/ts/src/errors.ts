/**
 * Typed errors. Clients decide on `code` (the envelope's machine-readable code), never on the message:
 * `err instanceof TapelineApiError && err.code === 'PAYMENT_REQUIRED'`.
 */
import type { Error as ErrorBody } from './api.generated.js';

export type ErrorCode = ErrorBody['code'];

export class TapelineError extends Error {
  override name = 'TapelineError';
}

/** The service answered with its error envelope (or a non-2xx status). */
export class TapelineApiError extends TapelineError {
  override name = 'TapelineApiError';
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** Seconds the service asked to wait (429 `Retry-After`), when it said. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(`${code} (${status}): ${message}`);
  }
}

/** No usable answer: connection refused or reset, timeout, or a body that is not the envelope. */
export class TapelineConnectionError extends TapelineError {
  override name = 'TapelineConnectionError';
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

/** A status without an envelope (a proxy's 502, say) still gets the code the service would have used. */
export function codeForStatus(status: number): ErrorCode {
  const codes: Record<number, ErrorCode> = {
    400: 'BAD_REQUEST',
    401: 'UNAUTHORIZED',
    402: 'PAYMENT_REQUIRED',
    403: 'FORBIDDEN',
    404: 'NOT_FOUND',
    405: 'METHOD_NOT_ALLOWED',
    409: 'CONFLICT',
    429: 'RATE_LIMITED',
  };
  return codes[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'BAD_REQUEST');
}

export function isApiError<C extends ErrorCode>(error: unknown, code?: C): error is TapelineApiError & { code: C } {
  return error instanceof TapelineApiError && (code === undefined || error.code === code);
}

/** API errors carry their HTTP status and envelope code; one middleware renders them. */
export type ErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'PAYMENT_REQUIRED'
  | 'CONFLICT'
  | 'METHOD_NOT_ALLOWED'
  | 'RATE_LIMITED'
  | 'GONE'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_ERROR';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly options: {
      /** A machine-readable refusal reason, where the operation defines them (rendered as `reason`). */
      reason?: string;
      /** Sent as Retry-After (429, 503). */
      retryAfterSeconds?: number;
      /** Other headers the refusal carries (RateLimit-*). */
      headers?: Record<string, string>;
    } = {},
  ) {
    super(message);
  }

  get reason(): string | undefined {
    return this.options.reason;
  }
  get retryAfterSeconds(): number | undefined {
    return this.options.retryAfterSeconds;
  }
  get headers(): Record<string, string> {
    return this.options.headers ?? {};
  }

  static badRequest(message: string) {
    return new ApiError(400, 'BAD_REQUEST', message);
  }
  static unauthorized(message: string) {
    return new ApiError(401, 'UNAUTHORIZED', message);
  }
  static notFound(message: string) {
    return new ApiError(404, 'NOT_FOUND', message);
  }
  static rateLimited(message: string, retryAfterSeconds: number, headers: Record<string, string> = {}) {
    return new ApiError(429, 'RATE_LIMITED', message, { retryAfterSeconds, headers });
  }
  static unavailable(message: string, retryAfterSeconds: number) {
    return new ApiError(503, 'SERVICE_UNAVAILABLE', message, { retryAfterSeconds });
  }
}

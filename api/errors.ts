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
  | 'UNAVAILABLE'
  | 'INTERNAL_ERROR';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** A machine-readable refusal reason, where the operation defines them (rendered as `reason`). */
    readonly reason?: string,
  ) {
    super(message);
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
}

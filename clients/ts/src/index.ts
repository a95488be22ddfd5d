/** tapeline TypeScript SDK: generated operation types and table, plus auth, retries, typed errors, cursor iteration and webhook verification. */
export * from './api.generated.js';
export {
  type ClientOptions,
  createClient,
  DEFAULT_BASE_URL,
  type OperationMethods,
  type Page,
  type PaginatedId,
  type Params,
  type Result,
  TapelineClient,
} from './client.js';
export { codeForStatus, type ErrorCode, isApiError, TapelineApiError, TapelineConnectionError, TapelineError } from './errors.js';
export {
  type DownloadedExport,
  type DownloadedFile,
  downloadExport,
  ExportDownloadError,
  type ExportManifest,
  type ExportManifestFile,
} from './exports.js';
export { DEFAULT_RETRY, type RetryOptions } from './retry.js';
export {
  DEFAULT_RECONNECT,
  isStreamError,
  type ReconnectOptions,
  type StreamChannel,
  type StreamErrorCode,
  type StreamFilters,
  type StreamMessage,
  type StreamOptions,
  TapelineStream,
  TapelineStreamError,
} from './stream.js';
export {
  constructEvent,
  DEFAULT_TOLERANCE_SECONDS,
  type VerifyFailure,
  type VerifyInput,
  type VerifyResult,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
} from './webhooks.js';

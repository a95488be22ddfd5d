/**
 * Receiver-side verification of tapeline webhook deliveries (self-contained: copy it into a receiver).
 *
 * Rule (spec "Signature rule"): message = X-Service-Timestamp + '.' + raw body exactly as received;
 * expected = 'sha256=' + lowercase hex HMAC-SHA256(key = the subscription secret, message). Reject when
 * no signature matches (constant-time compare) or when |now - timestamp| > 300 s, in either direction.
 *
 * During a secret rotation's grace period the header carries a comma-separated list, new secret
 * first (`sha256=<new>,sha256=<old>`); a delivery is valid when any entry matches.
 */
import crypto from 'node:crypto';

export const DEFAULT_TOLERANCE_SECONDS = 300;

export type VerifyFailure =
  | 'missing_header'
  | 'malformed_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'malformed_signature'
  | 'signature_mismatch';

export type VerifyResult = { ok: true } | { ok: false; reason: VerifyFailure };

export interface VerifyInput {
  /** The raw request body: the exact bytes received, before any JSON parsing. */
  body: string | Buffer;
  /** Request headers (any case), e.g. Node's `request.headers` or a fetch Headers converted to an object. */
  headers: Record<string, string | string[] | undefined>;
  /** One secret, or several while the receiver itself is rolling secrets. */
  secret: string | string[];
  toleranceSeconds?: number;
  /** Current time in ms; injectable for tests. */
  now?: () => number;
}

const SIGNATURE_ENTRY = /^sha256=([0-9a-f]{64})$/;

export function verifyWebhook(input: VerifyInput): VerifyResult {
  const timestampHeader = header(input.headers, 'x-service-timestamp');
  const signatureHeader = header(input.headers, 'x-service-signature');
  if (!timestampHeader || !signatureHeader) return { ok: false, reason: 'missing_header' };
  if (!/^\d{1,12}$/.test(timestampHeader)) return { ok: false, reason: 'malformed_timestamp' };

  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((input.now ?? Date.now)() / 1000);
  const timestamp = Number(timestampHeader);
  if (nowSeconds - timestamp > tolerance) return { ok: false, reason: 'timestamp_too_old' };
  if (timestamp - nowSeconds > tolerance) return { ok: false, reason: 'timestamp_too_new' };

  const received: Buffer[] = [];
  for (const entry of signatureHeader.split(',')) {
    const match = SIGNATURE_ENTRY.exec(entry.trim());
    if (match) received.push(Buffer.from(match[1]!, 'hex'));
  }
  if (received.length === 0) return { ok: false, reason: 'malformed_signature' };

  const body = typeof input.body === 'string' ? Buffer.from(input.body, 'utf8') : input.body;
  const secrets = Array.isArray(input.secret) ? input.secret : [input.secret];
  for (const secret of secrets) {
    const expected = crypto.createHmac('sha256', secret).update(`${timestampHeader}.`).update(body).digest();
    // Both sides are 32-byte digests (the pattern fixes the length), as timingSafeEqual requires.
    if (received.some((candidate) => crypto.timingSafeEqual(candidate, expected))) return { ok: true };
  }
  return { ok: false, reason: 'signature_mismatch' };
}

function header(headers: VerifyInput['headers'], name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

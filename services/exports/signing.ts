/**
 * Download links of export files: `expires` (Unix seconds) and an HMAC-SHA256 of
 * "<job id>/<file name>/<expires>" under the server's export signing key. A link opens exactly one
 * file of one job, without an API key, until it expires; changing any part breaks the signature.
 */
import crypto from 'node:crypto';

const message = (jobId: string, name: string, expires: number) => `tapeline export v1\n${jobId}\n${name}\n${expires}`;

export function signFile(secret: string, jobId: string, name: string, expires: number): string {
  return crypto
    .createHmac('sha256', secret)
    .update(message(jobId, name, expires))
    .digest('base64url');
}

export type LinkCheck = { ok: true } | { ok: false; reason: 'expired' | 'signature' };

export function checkLink(secret: string, jobId: string, name: string, expires: number, signature: string, nowMs: number): LinkCheck {
  const expected = Buffer.from(signFile(secret, jobId, name, expires));
  const given = Buffer.from(signature);
  // Constant time, so the signature cannot be found a byte at a time.
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return { ok: false, reason: 'signature' };
  if (expires * 1000 <= nowMs) return { ok: false, reason: 'expired' };
  return { ok: true };
}

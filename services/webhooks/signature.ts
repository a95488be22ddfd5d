/**
 * Service-side signing (docs/WEBHOOKS.md): 'sha256=' + lowercase hex HMAC-SHA256(secret,
 * `${timestamp}.${body}`), computed at send time over the exact bytes sent. While a rotated secret's
 * grace period runs, the header lists both signatures, new first, comma-separated.
 */
import crypto from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

export function generateSecret(randomBytes: (size: number) => Buffer = crypto.randomBytes): string {
  // 24 random bytes = 192 bits, 32 base64url characters.
  return SECRET_PREFIX + randomBytes(24).toString('base64url');
}

export function secretHint(secret: string): string {
  return `${secret.slice(0, SECRET_PREFIX.length + 4)}…${secret.slice(-4)}`;
}

export function signatureOf(secret: string, timestampSeconds: number, body: string): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex')}`;
}

export function signatureHeader(secrets: string[], timestampSeconds: number, body: string): string {
  return secrets.map((secret) => signatureOf(secret, timestampSeconds, body)).join(',');
}

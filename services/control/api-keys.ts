/**
 * API key format: `aif_` + 32 random base62 characters + a 6-character checksum. The checksum lets
 * a typo or a made-up key be rejected without a database lookup; only SHA-256(key) is stored.
 */
import crypto from 'node:crypto';
import zlib from 'node:zlib';

const API_KEY_PREFIX = 'aif_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);

export type RandomBytes = (size: number) => Buffer;

export function generateApiKey(randomBytes: RandomBytes = crypto.randomBytes): string {
  let body = '';
  while (body.length < BODY_LENGTH) {
    for (const byte of randomBytes(BODY_LENGTH)) {
      // Rejection sampling: 248 = 4 x 62, so accepted bytes map onto base62 without bias.
      if (byte < 248 && body.length < BODY_LENGTH) body += BASE62[byte % 62];
    }
  }
  return `${API_KEY_PREFIX}${body}${checksum(body)}`;
}

export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const body = key.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + BODY_LENGTH);
  return key.slice(-CHECKSUM_LENGTH) === checksum(body);
}

export function hashApiKey(key: string): string {
  return crypto.createHash('sha256').update(key).digest('hex');
}

/** A short, safe-to-show reminder of which key this is (never enough to use it). */
export function apiKeyHint(key: string): string {
  return `${key.slice(0, API_KEY_PREFIX.length + 4)}…${key.slice(-4)}`;
}

function checksum(body: string): string {
  let value = zlib.crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

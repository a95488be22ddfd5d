/** The shared webhook test vectors (also read by the Python SDK's tests) against the TypeScript verifier and the SDK's constructEvent. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { constructEvent, WebhookVerificationError } from '../ts/src/webhooks.js';
import { verifyWebhook } from './verify.js';

interface Vector {
  name: string;
  secret: string | string[];
  body: string;
  headers: Record<string, string>;
  now_ms: number;
  expected: { ok: true } | { ok: false; reason: string };
}

const file = path.join(path.dirname(fileURLToPath(import.meta.url)), 'test-vectors.json');
const { vectors, tolerance_seconds } = JSON.parse(fs.readFileSync(file, 'utf8')) as { vectors: Vector[]; tolerance_seconds: number };

test('the vector file covers success and every failure reason', () => {
  const reasons = new Set(vectors.map((v) => (v.expected.ok ? 'ok' : v.expected.reason)));
  expect([...reasons].sort()).toEqual(
    [
      'malformed_signature',
      'malformed_timestamp',
      'missing_header',
      'ok',
      'signature_mismatch',
      'timestamp_too_new',
      'timestamp_too_old',
    ].sort(),
  );
});

test.each(vectors.map((v) => [v.name, v] as const))('verifyWebhook: %s', (_name, vector) => {
  const result = verifyWebhook({
    body: vector.body,
    headers: vector.headers,
    secret: vector.secret,
    toleranceSeconds: tolerance_seconds,
    now: () => vector.now_ms,
  });
  expect(result).toEqual(vector.expected);
});

test.each(vectors.map((v) => [v.name, v] as const))('SDK constructEvent: %s', (_name, vector) => {
  const run = () =>
    constructEvent({ body: Buffer.from(vector.body, 'utf8'), headers: vector.headers, secret: vector.secret, now: () => vector.now_ms });
  if (vector.expected.ok) expect(run().event).toBe(JSON.parse(vector.body).event);
  else {
    expect(run).toThrow(WebhookVerificationError);
    try {
      run();
    } catch (error) {
      expect((error as WebhookVerificationError).reason).toBe(vector.expected.reason);
    }
  }
});

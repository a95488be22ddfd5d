/**
 * Webhook receivers: verification is clients/webhooks/verify.ts (the one implementation, also
 * copy-paste-able on its own); `constructEvent` adds parsing into the generated delivery types.
 */
import { type VerifyFailure, type VerifyInput, verifyWebhook } from '../../webhooks/verify.js';
import type { WebhookEvents } from './api.generated.js';

export {
  DEFAULT_TOLERANCE_SECONDS,
  type VerifyFailure,
  type VerifyInput,
  type VerifyResult,
  verifyWebhook,
} from '../../webhooks/verify.js';

/** A verified delivery body, discriminated by `event`. */
export type WebhookEvent = WebhookEvents[keyof WebhookEvents];

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
  constructor(readonly reason: VerifyFailure | 'malformed_body') {
    super(`webhook delivery refused: ${reason}`);
  }
}

/** Verifies a delivery (signature and timestamp tolerance) and returns its parsed body; throws WebhookVerificationError otherwise. */
export function constructEvent(input: VerifyInput): WebhookEvent {
  const result = verifyWebhook(input);
  if (!result.ok) throw new WebhookVerificationError(result.reason);
  try {
    const body = JSON.parse(typeof input.body === 'string' ? input.body : input.body.toString('utf8')) as unknown;
    if (!body || typeof body !== 'object' || typeof (body as { event?: unknown }).event !== 'string') throw new Error('no event');
    return body as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('malformed_body');
  }
}

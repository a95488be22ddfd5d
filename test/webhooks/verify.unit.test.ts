/** One test per signature failure mode of the receiver-side helper, against the service's signer. */
import { verifyWebhook } from '../../clients/webhooks/verify.js';
import { signatureHeader, signatureOf } from '../../services/webhooks/signature.js';

const SECRET = `whsec_${'k'.repeat(32)}`;
const OTHER = `whsec_${'o'.repeat(32)}`;
const NOW_MS = 1_800_000_000_000;
const NOW_S = NOW_MS / 1000;
const BODY = '{"event":"trade.executed","id":"evt_1","price":0.42}';
const now = () => NOW_MS;

function headers(timestamp: number | string, signature: string | undefined) {
  return { 'X-Service-Timestamp': String(timestamp), ...(signature === undefined ? {} : { 'X-Service-Signature': signature }) };
}

test('a delivery signed by the service verifies (the signing rule, by hand)', () => {
  const signature = signatureOf(SECRET, NOW_S, BODY);
  expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
  expect(verifyWebhook({ body: BODY, headers: headers(NOW_S, signature), secret: SECRET, now })).toEqual({ ok: true });
  expect(verifyWebhook({ body: Buffer.from(BODY), headers: headers(NOW_S, signature), secret: SECRET, now })).toEqual({ ok: true });
});

test('missing signature header', () => {
  expect(verifyWebhook({ body: BODY, headers: headers(NOW_S, undefined), secret: SECRET, now })).toEqual({
    ok: false,
    reason: 'missing_header',
  });
});

test('missing timestamp header', () => {
  const result = verifyWebhook({ body: BODY, headers: { 'x-service-signature': signatureOf(SECRET, NOW_S, BODY) }, secret: SECRET, now });
  expect(result).toEqual({ ok: false, reason: 'missing_header' });
});

test('bad hex in the signature', () => {
  const signature = `sha256=${'z'.repeat(64)}`;
  expect(verifyWebhook({ body: BODY, headers: headers(NOW_S, signature), secret: SECRET, now })).toEqual({
    ok: false,
    reason: 'malformed_signature',
  });
});

test('upper-case hex is not the documented form', () => {
  const signature = signatureOf(SECRET, NOW_S, BODY).toUpperCase().replace('SHA256=', 'sha256=');
  expect(verifyWebhook({ body: BODY, headers: headers(NOW_S, signature), secret: SECRET, now })).toEqual({
    ok: false,
    reason: 'malformed_signature',
  });
});

test('truncated signature', () => {
  const signature = signatureOf(SECRET, NOW_S, BODY).slice(0, -2);
  expect(verifyWebhook({ body: BODY, headers: headers(NOW_S, signature), secret: SECRET, now })).toEqual({
    ok: false,
    reason: 'malformed_signature',
  });
});

test('timestamp too old (301 s) is rejected; 300 s is accepted', () => {
  const old = NOW_S - 301;
  expect(verifyWebhook({ body: BODY, headers: headers(old, signatureOf(SECRET, old, BODY)), secret: SECRET, now })).toEqual({
    ok: false,
    reason: 'timestamp_too_old',
  });
  const edge = NOW_S - 300;
  expect(verifyWebhook({ body: BODY, headers: headers(edge, signatureOf(SECRET, edge, BODY)), secret: SECRET, now })).toEqual({ ok: true });
});

test('timestamp too new (301 s ahead) is rejected', () => {
  const future = NOW_S + 301;
  expect(verifyWebhook({ body: BODY, headers: headers(future, signatureOf(SECRET, future, BODY)), secret: SECRET, now })).toEqual({
    ok: false,
    reason: 'timestamp_too_new',
  });
});

test('malformed timestamp', () => {
  expect(verifyWebhook({ body: BODY, headers: headers('1e9', signatureOf(SECRET, NOW_S, BODY)), secret: SECRET, now })).toEqual({
    ok: false,
    reason: 'malformed_timestamp',
  });
});

test('wrong secret', () => {
  expect(verifyWebhook({ body: BODY, headers: headers(NOW_S, signatureOf(OTHER, NOW_S, BODY)), secret: SECRET, now })).toEqual({
    ok: false,
    reason: 'signature_mismatch',
  });
});

test('a body changed by one byte, or a timestamp swapped after signing, does not verify', () => {
  const signature = signatureOf(SECRET, NOW_S, BODY);
  expect(verifyWebhook({ body: BODY.replace('0.42', '0.43'), headers: headers(NOW_S, signature), secret: SECRET, now }).ok).toBe(false);
  expect(verifyWebhook({ body: BODY, headers: headers(NOW_S - 1, signature), secret: SECRET, now }).ok).toBe(false);
});

test('rotated secret: during the grace period both signatures are sent and either secret verifies', () => {
  const header = signatureHeader([OTHER, SECRET], NOW_S, BODY); // new (OTHER) first, old (SECRET) second
  expect(header.split(',')).toHaveLength(2);
  expect(verifyWebhook({ body: BODY, headers: headers(NOW_S, header), secret: SECRET, now })).toEqual({ ok: true });
  expect(verifyWebhook({ body: BODY, headers: headers(NOW_S, header), secret: OTHER, now })).toEqual({ ok: true });
  // After the grace period only the new secret signs: a receiver still on the old one is refused.
  const after = signatureHeader([OTHER], NOW_S, BODY);
  expect(verifyWebhook({ body: BODY, headers: headers(NOW_S, after), secret: SECRET, now })).toEqual({
    ok: false,
    reason: 'signature_mismatch',
  });
  // A receiver rolling its own configuration can hold both.
  expect(verifyWebhook({ body: BODY, headers: headers(NOW_S, after), secret: [SECRET, OTHER], now })).toEqual({ ok: true });
});

import { generateApiKey, hashApiKey, isWellFormedApiKey, apiKeyHint } from '../../services/control/api-keys.js';

describe('API keys', () => {
  test('generated keys carry the aif_ prefix, base62 body and a valid checksum', () => {
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey();
      expect(key).toMatch(/^aif_[0-9A-Za-z]{38}$/);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  test('keys are unique', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey()));
    expect(keys.size).toBe(1000);
  });

  test('a single changed character fails the checksum', () => {
    const key = generateApiKey(() => Buffer.alloc(32, 7));
    const body = key.slice(4, 36);
    const tampered = `aif_${body[0] === 'A' ? 'B' : 'A'}${body.slice(1)}${key.slice(-6)}`;
    expect(isWellFormedApiKey(tampered)).toBe(false);
  });

  test.each(['', 'aif_', 'sk_live_abc', `aif_${'a'.repeat(37)}`, `aif_${'a'.repeat(39)}`, `aif_${'-'.repeat(38)}`])(
    'rejects malformed %p',
    (key) => {
      expect(isWellFormedApiKey(key)).toBe(false);
    },
  );

  test('the stored hash is SHA-256 hex and the hint does not reveal the key', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(apiKeyHint(key).length).toBeLessThan(16);
  });
});

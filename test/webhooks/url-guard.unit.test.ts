/** The SSRF guard with resolver stubs: no DNS, no sockets. */
import { forbiddenReason } from '../../services/webhooks/address-policy.js';
import { UnsafeUrlError, UrlGuard, type Resolver } from '../../services/webhooks/url-guard.js';

const stub =
  (table: Record<string, string[]>): Resolver =>
  async (host) => {
    if (!(host in table)) throw new Error('ENOTFOUND');
    return table[host]!;
  };

test.each([
  ['127.0.0.1', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.20.0.1', 'private'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['169.254.169.254', 'link-local or metadata'],
  ['224.0.0.1', 'multicast'],
  ['0.0.0.0', 'unspecified'],
  ['255.255.255.255', 'reserved or broadcast'],
  ['::1', 'loopback'],
  ['fe80::1', 'link-local'],
  ['fd00:ec2::254', 'private (unique local)'],
  ['ff02::1', 'multicast'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:a9fe:a9fe', 'link-local or metadata'],
  ['64:ff9b::10.0.0.1', 'private'],
  // Every spelling of an IPv6 address that carries an IPv4 one is judged by that IPv4 address.
  ['::7f00:1', 'loopback'],
  ['::127.0.0.1', 'loopback'],
  ['::ffff:0:7f00:1', 'loopback'],
  ['::ffff:0:127.0.0.1', 'loopback'],
  ['0:0:0:0:0:ffff:a9fe:a9fe', 'link-local or metadata'],
  ['64:ff9b::a00:1', 'private'],
  // Translators and tunnels that reach IPv4 some other way are refused outright.
  ['64:ff9b:1::1', 'local-use NAT64'],
  ['64:ff9b:1:ffff::a00:1', 'local-use NAT64'],
  ['2002:7f00:1::1', '6to4 tunnel'],
  ['2002:808:808::1', '6to4 tunnel'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo tunnel'],
])('%s is refused as %s', (address, label) => {
  expect(forbiddenReason(address)).toBe(label);
});

test.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is a public address', (address) => {
  expect(forbiddenReason(address)).toBeNull();
});

test('a bracketed IPv4-compatible loopback URL is refused before any lookup', async () => {
  const guard = new UrlGuard([], stub({}));
  await expect(guard.check('http://[::7f00:1]:8080/hook')).rejects.toThrow(/loopback/);
  await expect(guard.check('http://[2002:7f00:1::1]/hook')).rejects.toThrow(/6to4/);
});

test('a refused loopback receiver names the setting that allows it, and a listed host (as the demo lists) is allowed', async () => {
  await expect(new UrlGuard([], stub({})).check('http://127.0.0.1:9000/hook')).rejects.toThrow(/WEBHOOK_ALLOWED_HOSTS/);
  const demo = new UrlGuard(['127.0.0.1', 'localhost', '::1'], stub({}));
  await expect(demo.check('http://127.0.0.1:9000/hook')).resolves.toBeInstanceOf(URL);
  await expect(demo.check('http://[::1]:9000/hook')).resolves.toBeInstanceOf(URL);
});

test('only http and https, no credentials, must resolve', async () => {
  const guard = new UrlGuard([], stub({ 'example.com': ['93.184.216.34'] }));
  await expect(guard.check('https://example.com/hook')).resolves.toBeInstanceOf(URL);
  await expect(guard.check('ftp://example.com/hook')).rejects.toThrow('only http and https');
  await expect(guard.check('file:///etc/passwd')).rejects.toThrow('only http and https');
  await expect(guard.check('https://user:pw@example.com/')).rejects.toThrow('credentials');
  await expect(guard.check('not a url')).rejects.toThrow('not a valid absolute URL');
  await expect(guard.check('https://nowhere.invalid/')).rejects.toThrow('does not resolve');
});

test('a name resolving to any private address is refused (one bad record is enough)', async () => {
  const guard = new UrlGuard(
    [],
    stub({ 'mixed.example': ['93.184.216.34', '10.0.0.5'], 'meta.example': ['169.254.169.254'], 'v6.example': ['::ffff:192.168.0.1'] }),
  );
  await expect(guard.check('https://mixed.example/')).rejects.toThrow(/10\.0\.0\.5, a private address/);
  await expect(guard.check('http://meta.example/latest/meta-data')).rejects.toThrow(/metadata/);
  await expect(guard.check('http://v6.example/')).rejects.toThrow(/private/);
  await expect(guard.check('http://[::1]:8080/')).rejects.toBeInstanceOf(UnsafeUrlError);
  await expect(guard.check('http://127.0.0.1:9/')).rejects.toThrow(/loopback/);
});

test('the allow-list exempts listed hosts and addresses only', async () => {
  const guard = new UrlGuard(['127.0.0.1', 'receiver.test'], stub({ 'receiver.test': ['10.0.0.9'], 'other.test': ['127.0.0.1'] }));
  await expect(guard.check('http://127.0.0.1:4000/hook')).resolves.toBeInstanceOf(URL);
  await expect(guard.check('http://receiver.test/hook')).resolves.toBeInstanceOf(URL);
  // A name that resolves to an allow-listed IP is fine; 10.0.0.9 behind another name is not.
  await expect(guard.check('http://other.test/hook')).resolves.toBeInstanceOf(URL);
  const strict = new UrlGuard(['127.0.0.1'], stub({ 'rebind.test': ['10.0.0.9'] }));
  await expect(strict.check('http://rebind.test/')).rejects.toThrow(/private/);
});

test('connect-time lookup refuses a name that now resolves privately (DNS rebinding)', async () => {
  let answer = ['93.184.216.34'];
  const guard = new UrlGuard([], async () => answer);
  await expect(guard.check('https://rebind.example/')).resolves.toBeInstanceOf(URL);
  answer = ['127.0.0.1'];
  const lookup = guard.lookup();
  const error = await new Promise<Error | null>((resolve) => lookup('rebind.example', { all: true }, (err) => resolve(err)));
  expect(error).toBeInstanceOf(UnsafeUrlError);
  answer = ['93.184.216.34'];
  const addresses = await new Promise<unknown>((resolve) => lookup('rebind.example', { all: true }, (_err, a) => resolve(a)));
  expect(addresses).toEqual([{ address: '93.184.216.34', family: 4 }]);
  const single = await new Promise<unknown[]>((resolve) => lookup('rebind.example', {}, (_err, a, f) => resolve([a, f])));
  expect(single).toEqual(['93.184.216.34', 4]);
});

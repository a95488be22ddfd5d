import { canonicalAddress, networkPrefix } from './network-prefix.js';

test('IPv4 networks are /24s; IPv4-mapped IPv6 counts as IPv4', () => {
  expect(networkPrefix('203.0.113.7')).toBe('203.0.113.0/24');
  expect(networkPrefix('::ffff:203.0.113.200')).toBe('203.0.113.0/24');
  expect(canonicalAddress('::FFFF:203.0.113.7')).toBe('203.0.113.7');
});

test('IPv6 networks are /64s whatever the spelling: a host walking its /64 stays in one network', () => {
  const prefix = '2001:0db8:0001:0002::/64';
  expect(networkPrefix('2001:db8:1:2::1')).toBe(prefix);
  expect(networkPrefix('2001:db8:1:2:ffff:ffff:ffff:fffe')).toBe(prefix);
  expect(networkPrefix('2001:DB8:1:2:0:0:0:9')).toBe(prefix);
  expect(networkPrefix('2001:db8:1:3::1')).not.toBe(prefix);
  expect(networkPrefix('::1')).toBe('0000:0000:0000:0000::/64');
  // One address, one spelling: a per-address limit cannot be escaped by writing it differently.
  expect(canonicalAddress('2001:db8::1')).toBe(canonicalAddress('2001:0DB8:0:0:0:0:0:1'));
  expect(canonicalAddress('fe80::1%eth0')).toBe(canonicalAddress('fe80::1'));
});

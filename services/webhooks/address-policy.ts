/**
 * Which IP addresses a webhook may reach: public unicast only. Private, loopback, link-local
 * (including the 169.254.169.254 cloud metadata address), CGNAT, multicast, reserved and
 * documentation ranges are refused. IPv6 addresses that carry an IPv4 address are judged by it,
 * whatever their spelling (the address is parsed to its 128 bits first): IPv4-compatible
 * (`::a.b.c.d`, `[::7f00:1]`), IPv4-mapped (`::ffff:0:0/96`), IPv4-translated (`::ffff:0:0:0/96`)
 * and NAT64 (`64:ff9b::/96`). Tunnels and translators that reach IPv4 by other routes are refused
 * outright: local-use NAT64 (`64:ff9b:1::/48`), 6to4 (`2002::/16`) and Teredo (`2001::/32`).
 */
import net from 'node:net';

const FORBIDDEN_V4: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local or metadata'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved or broadcast'],
];

const FORBIDDEN_V6: Array<[string, number, string]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b:1::', 48, 'local-use NAT64'],
  ['100::', 64, 'discard'],
  ['2001::', 32, 'Teredo tunnel'],
  ['2002::', 16, '6to4 tunnel'],
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'private (unique local)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

function buildList(family: 'ipv4' | 'ipv6', ranges: Array<[string, number, string]>) {
  return ranges.map(([address, prefix, label]) => {
    const list = new net.BlockList();
    list.addSubnet(address, prefix, family);
    return { list, label, family };
  });
}

const V4 = buildList('ipv4', FORBIDDEN_V4);
const V6 = buildList('ipv6', FORBIDDEN_V6);

/** The eight 16-bit groups of an IPv6 address (a trailing dotted quad counts as two), or null. */
function ipv6Groups(address: string): number[] | null {
  if (net.isIP(address) !== 6) return null;
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, null];
  const parse = (part: string | null | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  const groups = tail === null ? left : [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/** The IPv4 address an IPv6 address carries (compatible, mapped, translated or NAT64 form), if any. */
function embeddedIpv4(address: string): string | null {
  const g = ipv6Groups(address);
  if (!g) return null;
  const zeros = (from: number, to: number) => g.slice(from, to).every((v) => v === 0);
  const carries =
    (zeros(0, 6) && (g[6] !== 0 || g[7]! > 1)) || // ::a.b.c.d (not :: or ::1)
    (zeros(0, 5) && g[5] === 0xffff) || // ::ffff:a.b.c.d
    (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) || // ::ffff:0:a.b.c.d
    (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)); // 64:ff9b::a.b.c.d
  if (!carries) return null;
  return `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
}

/** Why an address is not allowed as a webhook target, or null when it is a public unicast address. */
export function forbiddenReason(address: string): string | null {
  const family = net.isIP(address);
  if (family === 0) return 'not an IP address';
  if (family === 6) {
    const inner = embeddedIpv4(address);
    if (inner) return forbiddenReason(inner);
    const hit = V6.find((range) => range.list.check(address, 'ipv6'));
    return hit ? hit.label : null;
  }
  const hit = V4.find((range) => range.list.check(address, 'ipv4'));
  return hit ? hit.label : null;
}

/**
 * Which IP addresses a webhook may reach: public unicast only. Private, loopback, link-local
 * (including the 169.254.169.254 cloud metadata address), CGNAT, multicast, reserved and
 * documentation ranges are refused; IPv4-mapped and NAT64 IPv6 forms are unwrapped first, so
 * `::ffff:127.0.0.1` is judged as 127.0.0.1.
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
  ['100::', 64, 'discard'],
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

/** The IPv4 address an IPv6 address embeds (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::), if any. */
export function embeddedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(lower);
  if (dotted) return dotted[1]!;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const high = parseInt(hex[1]!, 16);
    const low = parseInt(hex[2]!, 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return null;
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

/**
 * The network a client address belongs to, for limits that one host could otherwise escape by
 * changing its address: an IPv4 /24 and an IPv6 /64 (one customer's subnet, as handed out by ISPs
 * and clouds). IPv4-mapped IPv6 addresses (::ffff:a.b.c.d, how a dual-stack socket reports IPv4
 * peers) count as IPv4.
 */
import net from 'node:net';

/** The address itself in one canonical spelling (IPv4-mapped IPv6 as IPv4, IPv6 lower-case and fully expanded). */
export function canonicalAddress(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (net.isIPv6(address)) return expandIpv6(address).join(':');
  return address;
}

/** `a.b.c.0/24` for IPv4, the first four groups `/64` for IPv6; anything else (a socket without a peer) is its own network. */
export function networkPrefix(address: string): string {
  const canonical = canonicalAddress(address);
  if (net.isIPv4(canonical)) return `${canonical.split('.').slice(0, 3).join('.')}.0/24`;
  if (net.isIPv6(address)) return `${expandIpv6(address).slice(0, 4).join(':')}::/64`;
  return canonical;
}

/** The eight 16-bit groups of an IPv6 address, each as four lower-case hex digits. */
function expandIpv6(address: string): string[] {
  let text = address.toLowerCase().replace(/%.*$/, '');
  // A trailing dotted IPv4 part is the last two groups.
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((group) => group.padStart(4, '0'));
}

/**
 * SSRF guard for subscriber URLs, applied twice: when a subscription is created or its URL changed
 * (a clear 400 for the subscriber), and again at connect time through the HTTP agent's lookup, so a
 * name that later resolves to a private address (DNS rebinding) is refused before any byte is sent.
 * An allow-list of host names or IPs (WEBHOOK_ALLOWED_HOSTS) exempts local receivers in tests.
 */
import dns from 'node:dns';
import net from 'node:net';
import { forbiddenReason } from './address-policy.js';

export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

export class UnsafeUrlError extends Error {}

export class UrlGuard {
  private readonly allowed: Set<string>;

  constructor(
    allowedHosts: readonly string[],
    private readonly resolver: Resolver = systemResolver,
  ) {
    this.allowed = new Set(allowedHosts.map((host) => normalizeHost(host)));
  }

  isAllowListed(hostOrAddress: string): boolean {
    return this.allowed.has(normalizeHost(hostOrAddress));
  }

  /** Throws UnsafeUrlError (message fit for the subscriber) unless every resolved address is allowed. */
  async check(rawUrl: string): Promise<URL> {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      throw new UnsafeUrlError('url: not a valid absolute URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UnsafeUrlError('url: only http and https URLs are allowed');
    if (url.username || url.password) throw new UnsafeUrlError('url: credentials in the URL are not allowed');
    const host = normalizeHost(url.hostname);
    if (this.allowed.has(host)) return url;
    const addresses = net.isIP(host) ? [host] : await this.resolve(host);
    for (const address of addresses) this.assertAddress(address, host);
    return url;
  }

  /** Connect-time check of one resolved address. */
  assertAddress(address: string, host: string): void {
    if (this.allowed.has(normalizeHost(address))) return;
    const reason = forbiddenReason(address);
    if (reason) throw new UnsafeUrlError(`url: ${host} resolves to ${address}, a ${reason} address; webhooks only go to public addresses`);
  }

  /** A drop-in for `dns.lookup` on an http(s) request: resolves, then refuses forbidden addresses. */
  lookup(): net.LookupFunction {
    return (hostname, options, callback) => {
      this.resolveChecked(hostname).then(
        (addresses) => {
          const entries = addresses.map((address) => ({ address, family: net.isIP(address) }));
          if ((options as dns.LookupOptions).all) (callback as (e: null, a: dns.LookupAddress[]) => void)(null, entries);
          else callback(null, entries[0]!.address, entries[0]!.family);
        },
        (error: Error) => callback(error as NodeJS.ErrnoException, '', 0),
      );
    };
  }

  private async resolveChecked(hostname: string): Promise<string[]> {
    const host = normalizeHost(hostname);
    const addresses = net.isIP(host) ? [host] : await this.resolve(host);
    if (!this.allowed.has(host)) for (const address of addresses) this.assertAddress(address, host);
    return addresses;
  }

  private async resolve(host: string): Promise<string[]> {
    let addresses: string[];
    try {
      addresses = await this.resolver(host);
    } catch {
      throw new UnsafeUrlError(`url: ${host} does not resolve`);
    }
    if (addresses.length === 0) throw new UnsafeUrlError(`url: ${host} does not resolve`);
    return addresses;
  }
}

/** Lower case, IPv6 brackets removed, a trailing root dot dropped. */
function normalizeHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

/**
 * SSRF guard for subscriber URLs, applied twice: when a subscription is created or its URL changed
 * (a clear 400 for the subscriber), and again at connect time through the HTTP agent's lookup, so a
 * name that later resolves to a private address (DNS rebinding) is refused before any byte is sent.
 * An allow-list of host names or IPs (WEBHOOK_ALLOWED_HOSTS) exempts local receivers in tests.
 * Names are resolved by c-ares (DNS queries on the event loop), not getaddrinfo: dns.lookup runs on
 * libuv's four-thread pool, which the file log's disk I/O shares, so slow subscriber DNS would stall
 * the log. Answers are cached for their TTL (bounded), so a busy receiver costs one query per TTL.
 */
import dns from 'node:dns';
import net from 'node:net';
import { BoundedLru } from '../shared/lru.js';
import { forbiddenReason } from './address-policy.js';

export type Resolver = (hostname: string) => Promise<string[]>;

/** Cached answers: at least a second (a burst shares one query), at most five minutes. */
const MIN_TTL_MS = 1_000;
const MAX_TTL_MS = 300_000;

/** A resolver on c-ares with a TTL cache; `servers` overrides the system's name servers. */
export function dnsResolver(options: { timeoutMs?: number; servers?: string[] } = {}): Resolver {
  const resolver = new dns.promises.Resolver({ timeout: options.timeoutMs ?? 5_000, tries: 2 });
  if (options.servers) resolver.setServers(options.servers);
  const cache = new BoundedLru<string, string[]>({ maxEntries: 10_000 });
  return async (hostname) => {
    const cached = cache.get(hostname);
    if (cached) return cached;
    const answers = await Promise.allSettled([resolver.resolve4(hostname, { ttl: true }), resolver.resolve6(hostname, { ttl: true })]);
    const records = answers.flatMap((answer) => (answer.status === 'fulfilled' ? answer.value : []));
    if (records.length === 0) {
      const failure = answers.find((answer) => answer.status === 'rejected');
      throw failure?.status === 'rejected' ? failure.reason : new Error(`${hostname} has no A or AAAA records`);
    }
    const ttlMs = Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, Math.min(...records.map((r) => r.ttl)) * 1000));
    const addresses = records.map((r) => r.address);
    cache.set(hostname, addresses, ttlMs);
    return addresses;
  };
}

const systemResolver: Resolver = dnsResolver();

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
    if (reason)
      throw new UnsafeUrlError(
        `url: ${host} resolves to ${address}, a ${reason} address; webhooks only go to public addresses unless the operator lists the host in WEBHOOK_ALLOWED_HOSTS`,
      );
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
    if (net.isIP(host)) {
      if (!this.allowed.has(host)) this.assertAddress(host, host);
      return [host];
    }
    // Allow-listed names are the operator's own (local receivers, /etc/hosts entries): the system resolver.
    if (this.allowed.has(host)) return (await dns.promises.lookup(host, { all: true })).map((entry) => entry.address);
    const addresses = await this.resolve(host);
    for (const address of addresses) this.assertAddress(address, host);
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

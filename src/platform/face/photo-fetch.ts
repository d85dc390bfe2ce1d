import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses a photo URL may reach. A photo URL comes from a member or a verifier, so the server
 * must not become their way into its own network (SSRF): only public unicast addresses, unless the
 * deployment names its internal photo hosts (FACE_PHOTO_ALLOWED_HOSTS: host names, addresses, CIDRs).
 */
export interface AddressPolicy {
  allows(hostname: string, address: string): boolean;
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** ipaddr.js names every special-purpose range (loopback, private, linkLocal, uniqueLocal, carrierGradeNat, …); only 'unicast' is public. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // process() turns an IPv4-mapped IPv6 address into the IPv4 it carries, so ::ffff:127.0.0.1 is loopback.
  return ipaddr.process(address).range() === 'unicast';
}

/** Throws on an entry that is neither a host name, an address nor a CIDR (a typo must not open or close everything silently). */
export function createAddressPolicy(allowed: readonly string[]): AddressPolicy {
  const names = new Set<string>();
  const ranges: Range[] = [];
  for (const raw of allowed) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry.includes('/')) {
      ranges.push(ipaddr.parseCIDR(entry));
    } else if (ipaddr.isValid(entry.replace(/^\[|\]$/g, ''))) {
      const ip = ipaddr.process(entry.replace(/^\[|\]$/g, ''));
      ranges.push([ip, ip.kind() === 'ipv4' ? 32 : 128]);
    } else if (/^[a-z0-9.-]+$/.test(entry)) {
      names.add(entry.replace(/\.$/, ''));
    } else {
      throw new Error(`not a host name, address or CIDR: ${raw}`);
    }
  }
  const inRange = (address: string) => {
    const ip = ipaddr.process(address);
    return ranges.some(([net, bits]) => net.kind() === ip.kind() && ip.match(net, bits));
  };
  return {
    allows(hostname, address) {
      if (!ipaddr.isValid(address)) return false;
      return names.has(hostname.toLowerCase().replace(/\.$/, '')) || isPublicAddress(address) || inRange(address);
    },
  };
}

class AddressRefused extends Error {
  readonly code = 'EADDRREFUSED';
}

/**
 * A DNS lookup for the HTTP agent that resolves every address of the host, refuses the host when any
 * of them is not allowed, and hands exactly those checked addresses to the connection: the socket
 * connects to what was checked, so no second resolution can rebind the name to an internal address.
 */
export function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      if (addresses.length === 0 || addresses.some((a) => !policy.allows(hostname, a.address))) {
        return callback(new AddressRefused(`${hostname} resolves to an address photos are not read from`), '', 0);
      }
      if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

export interface PhotoFetchOptions {
  policy: AddressPolicy;
  signal: AbortSignal;
  maxRedirects?: number;
}

const MAX_REDIRECTS = 3;

/**
 * GETs the URL with the address policy applied to the host of every hop: an address literal is
 * checked here (the agent does not look one up), a name through `guardedLookup`. Redirects are
 * followed by hand, at most `maxRedirects`, each one checked like the first URL. The caller reads the
 * body of the 2xx answer; anything else is an error.
 */
export async function fetchPhoto(start: URL, opts: PhotoFetchOptions): Promise<IncomingMessage> {
  const lookup = guardedLookup(opts.policy);
  let url = start;
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new AddressRefused(`a redirect to ${url.protocol} is not followed`);
    if (url.username || url.password) throw new AddressRefused('photo URLs with credentials are not read');
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(hostname) && !opts.policy.allows(hostname, hostname))
      throw new AddressRefused(`${hostname} is an address photos are not read from`);
    const res = await get(url, lookup, opts.signal);
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400 && res.headers.location) {
      res.resume();
      if (hop >= (opts.maxRedirects ?? MAX_REDIRECTS)) throw new Error('too many redirects');
      url = new URL(res.headers.location, url);
      continue;
    }
    if (status < 200 || status >= 300) {
      res.resume();
      throw new Error(`HTTP ${status}`);
    }
    return res;
  }
}

function get(url: URL, lookup: LookupFunction, signal: AbortSignal): Promise<IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    // agent: false — a fresh connection per photo, never a pooled socket of another host's lookup.
    const req = client.get(
      url,
      { lookup, signal, agent: false, headers: { accept: 'image/jpeg, image/png, image/*;q=0.8' } },
      resolve,
    );
    req.on('error', reject);
  });
}

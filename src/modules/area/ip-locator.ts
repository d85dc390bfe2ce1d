import { createRequire } from 'node:module';

interface IpRecord {
  country: string;
  province: string;
  city: string;
  isp: string;
}
interface Searcher {
  search(ip: string): IpRecord | null;
}

const require = createRequire(import.meta.url);
let searcher: Searcher | null = null;

/**
 * ip2region's bundled IPv4/IPv6 databases, loaded on first use so start-up does not pay for them.
 * An address the library cannot place (it throws on some valid forms) is simply unknown.
 */
export function locateIp(ip: string): IpRecord | null {
  if (!searcher) {
    const mod = require('ip2region') as { default: new () => Searcher };
    searcher = new mod.default();
  }
  try {
    return searcher.search(ip);
  } catch {
    return null;
  }
}

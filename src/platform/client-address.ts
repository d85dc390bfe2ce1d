import { isIPv4, isIPv6 } from 'node:net';

/**
 * The unit a client is counted by in rate limits and lock-outs: an IPv4 address, or the /64 an IPv6
 * address belongs to (one subscriber usually holds a whole /64, so counting single addresses would
 * hand an attacker 2^64 fresh tries). An IPv4-mapped IPv6 address counts as its IPv4 address.
 */
export function clientKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1];
  if (isIPv4(ip) || !isIPv6(ip)) return ip;
  const bare = ip.split('%')[0].toLowerCase();
  const [head, tail = ''] = bare.split('::');
  const left = head ? head.split(':') : [];
  // an embedded dotted quad fills the last two groups, which the /64 never reaches
  const right = tail ? tail.split(':') : [];
  const groups = bare.includes('::')
    ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

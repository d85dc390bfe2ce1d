import type { RouteReads } from '../db/read-context.js';
import type { RouteSpec } from './routes.js';

/**
 * Where a route's reads may go (docs/adr/0101-reads-on-a-streaming-replica.md), unless the route says
 * (`reads`): exports and statistics are reports (replica, the report statement bound), page
 * queries replica reads, everything else primary. A cached answer stays on the primary: the cache
 * would keep the replica's older rows past the lag bound, until the next write.
 */
export function routeReads(spec: RouteSpec): RouteReads {
  if (spec.reads) return spec.reads;
  if (spec.cached) return 'primary';
  const action = spec.path.slice(spec.path.lastIndexOf('/') + 1);
  if (/^export[A-Z]/.test(action) || spec.tags.includes('statistics') || /^stat[A-Z]|Stat$/.test(action))
    return 'report';
  if (/^query\w*Page$/.test(action)) return 'replica';
  return 'primary';
}

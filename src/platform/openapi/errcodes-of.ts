import { ErrorCode, errcodeInfo, type Errcode } from '../errors.js';
import type { RouteSpec } from '../http/routes.js';

/**
 * The errcodes a route can answer, for its OpenAPI error schema: the common codes its declaration
 * implies, and the module codes its module and the route itself declare (`errcodes`). The test
 * suite's answer check (test/helpers/contract-check.ts) refuses any errcode an operation answered
 * without listing it, so a list that forgets one fails CI.
 */
export function errcodesOf(route: RouteSpec): Errcode[] {
  const codes = new Set<number>([ErrorCode.INTERNAL, ErrorCode.UNAVAILABLE]);
  // Whatever carries a body can be malformed, too large, or a form posted from another site (403).
  const takesInput =
    route.body !== undefined || route.query !== undefined || route.upload !== undefined || route.method !== 'GET';
  if (takesInput) {
    codes.add(ErrorCode.BAD_REQUEST);
    codes.add(ErrorCode.FORBIDDEN);
    codes.add(ErrorCode.NOT_FOUND);
    codes.add(ErrorCode.PAYLOAD_TOO_LARGE);
  }
  if (route.auth !== 'public') {
    codes.add(ErrorCode.UNAUTHORIZED);
    codes.add(ErrorCode.FORBIDDEN);
  }
  // Writes: duplicates, references, wrong status, a concurrent change.
  if (
    route.operation ||
    (route.method === 'POST' &&
      /\/(add|update|delete|batch|bind|unbind|activate|generate|submit|calc|execute|reset|enable|disable|move|set)/i.test(
        route.path,
      ))
  ) {
    codes.add(ErrorCode.CONFLICT);
  }
  for (const entry of route.errcodes ?? []) {
    if (typeof entry === 'number') codes.add(entry);
    else for (const code of Object.values(entry)) codes.add(code);
  }
  return [...codes]
    .sort((a, b) => a - b)
    .map((code) => {
      const info = errcodeInfo(code);
      if (!info)
        throw new Error(`route ${route.path} lists errcode ${code}, which no errcodes() declaration describes`);
      return info;
    });
}

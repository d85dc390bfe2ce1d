import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { authed } from '../../platform/http/context.js';
import { PageInfo } from '../../platform/http/schemas.js';
import type { CheckConflictService } from './check-conflict.service.js';
import { CheckConflictPageRequest, CheckConflictResponse } from './check-conflict.schemas.js';

const tags = ['checker'];

/** The conflicts of offline scans (channel M, issue 39). */
export function checkConflictRoutes(svc: CheckConflictService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/checker/queryCheckConflictPage',
      channels: ['manage'],
      auth: { kinds: ['admin'] },
      permission: 'checker:read',
      summary:
        "A page of checks offline gates admitted over a bound (the card's daily limit, the spot's day or slot capacity), " +
        'newest first: recorded and settled like any other check, listed here for you to follow up',
      tags,
      body: CheckConflictPageRequest,
      response: PageInfo(CheckConflictResponse),
      handler: (ctx, { body }) => svc.page(authed(ctx), body),
    }),
  ];
}

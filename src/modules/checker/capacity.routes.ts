import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { authed } from '../../platform/http/context.js';
import { IdRequest } from '../../platform/http/schemas.js';
import type { CapacityService } from './capacity.service.js';
import { SetSpotCapacityRequest, SpotCapacityResponse } from './capacity.schemas.js';

const tags = ['checker'];
const staff = { kinds: ['admin' as const] };
const MODULE = '景区承载量';

/** A scenic spot's capacity, manage channel (docs/domain.md §4.1, issue 39). */
export function capacityRoutes(svc: CapacityService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/checker/setSpotCapacity',
      channels: ['manage'],
      auth: staff,
      permission: 'checker:write',
      operation: [MODULE, '设置景区承载量'],
      summary:
        "Set a scenic spot's (SKU's) daily capacity and optional time slots, enforced exactly at check-in (SPOT_CAPACITY_REACHED, SLOT_CAPACITY_REACHED); dailyCapacity null and no slots removes it. Admissions already made that day count",
      tags,
      body: SetSpotCapacityRequest,
      response: null,
      handler: (ctx, { body }) => svc.set(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/checker/getSpotCapacity',
      channels: ['manage'],
      auth: staff,
      permission: 'checker:read',
      summary: "A scenic spot's capacity (dailyCapacity null and no slots: none)",
      tags,
      body: IdRequest,
      response: SpotCapacityResponse,
      handler: (ctx, { body }) => svc.get(authed(ctx), body.id),
    }),
  ];
}

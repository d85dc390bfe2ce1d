import { Type } from 'typebox';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import type { AreaService } from './area.service.js';

const tags = ['area'];
const staff = { kinds: ['admin' as const] };

const AreaResponse = Type.Cyclic(
  {
    AreaNode: Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      children: Type.Array(Type.Ref('AreaNode'), { description: "the node's cities or districts; [] for a leaf" }),
    }),
  },
  'AreaNode',
);

export function areaRoutes(svc: AreaService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/system/area/tree',
      cached: true,
      channels: ['manage'],
      auth: staff,
      permission: 'area:read',
      summary: 'Province → city → district tree',
      tags,
      response: Type.Array(AreaResponse),
      handler: () => svc.tree(),
    }),
    defineRoute({
      method: 'POST',
      path: '/system/area/get-by-ip',
      channels: ['manage'],
      auth: staff,
      permission: 'area:read',
      summary: 'The city of an IP address, formatted like "江苏省 南京市" ("未知" when unknown)',
      tags,
      query: Type.Object({ ip: Type.String({ minLength: 1, maxLength: 64 }) }),
      response: Type.String(),
      handler: (_ctx, { query }) => svc.formatByIp(query.ip),
    }),
  ];
}

import { Type } from 'typebox';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { authed } from '../../platform/http/context.js';
import { IdRequest, PageInfo } from '../../platform/http/schemas.js';
import type { RegionService } from './region.service.js';
import {
  RegionAddRequest,
  RegionListRequest,
  RegionPageRequest,
  RegionResponse,
  RegionTreeResponse,
  RegionUpdateRequest,
} from './region.schemas.js';

const tags = ['region'];
const staff = { kinds: ['admin' as const] };
const MODULE = '地区管理';

export function regionRoutes(svc: RegionService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/region/addRegion',
      channels: ['manage'],
      auth: staff,
      permission: 'region:write',
      operation: [MODULE, '新增地区'],
      summary: 'Add a region',
      tags,
      body: RegionAddRequest,
      response: RegionResponse,
      handler: (ctx, { body }) => svc.add(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/region/updateRegion',
      channels: ['manage'],
      auth: staff,
      permission: 'region:write',
      operation: [MODULE, '修改地区'],
      summary: 'Update a region',
      tags,
      body: RegionUpdateRequest,
      response: null,
      handler: (ctx, { body }) => svc.update(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/region/deleteRegion',
      channels: ['manage'],
      auth: staff,
      permission: 'region:write',
      operation: [MODULE, '删除地区'],
      summary: 'Delete a region that has no child regions',
      tags,
      body: IdRequest,
      response: null,
      handler: (ctx, { body }) => svc.remove(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/region/getRegion',
      channels: ['manage'],
      auth: staff,
      permission: 'region:read',
      summary: 'One region',
      tags,
      body: IdRequest,
      response: RegionResponse,
      handler: (_ctx, { body }) => svc.get(body.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/region/queryRegionPage',
      cached: true,
      channels: ['manage'],
      auth: staff,
      permission: 'region:read',
      summary: 'A page of regions matching the filters',
      tags,
      body: RegionPageRequest,
      response: PageInfo(RegionResponse),
      handler: (_ctx, { body }) => svc.page(body),
    }),
    defineRoute({
      method: 'POST',
      path: '/region/queryRegionList',
      channels: ['open'],
      auth: 'open',
      permission: 'region:read',
      summary: 'Regions matching the filters (served from the cache)',
      tags,
      body: RegionListRequest,
      response: Type.Array(RegionResponse),
      handler: (ctx, { body }) => svc.list(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      path: '/region/queryRegionTree',
      cached: true,
      channels: ['manage'],
      auth: staff,
      permission: 'region:read',
      summary: 'The whole region tree (served from the cache)',
      tags,
      response: Type.Array(RegionTreeResponse),
      handler: () => svc.tree(),
    }),
  ];
}

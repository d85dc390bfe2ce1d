import { Type } from 'typebox';
import { authed } from '../../platform/http/context.js';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { IdRequest, PageInfo } from '../../platform/http/schemas.js';
import { SpuAddRequest, SpuListRequest, SpuPageRequest, SpuResponse, SpuUpdateRequest } from './spu.schemas.js';
import type { SpuService } from './spu.service.js';

const tags = ['spu'];
const staff = { kinds: ['admin' as const] };
const MODULE = '资源管理';
export const CATALOG_READ = 'catalog:read';
export const CATALOG_WRITE = 'catalog:write';

/** Spec B 4.6 addSpu, channel M; get, list, page, update and delete are what operators need besides. */
export function spuRoutes(svc: SpuService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/spu/addSpu',
      channels: ['manage'],
      auth: staff,
      permission: CATALOG_WRITE,
      operation: [MODULE, '新增资源'],
      summary: 'Add a resource to a shop of your merchant',
      tags,
      body: SpuAddRequest,
      response: SpuResponse,
      handler: (ctx, { body }) => svc.add(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/spu/updateSpu',
      channels: ['manage'],
      auth: staff,
      permission: CATALOG_WRITE,
      operation: [MODULE, '修改资源'],
      summary: 'Update a resource (absent optional fields are kept; another shop only without SKUs)',
      tags,
      body: SpuUpdateRequest,
      response: null,
      handler: (ctx, { body }) => svc.update(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/spu/deleteSpu',
      channels: ['manage'],
      auth: staff,
      permission: CATALOG_WRITE,
      operation: [MODULE, '删除资源'],
      summary: 'Delete a resource nothing refers to any more (logical delete); status 2 takes it off shelf instead',
      tags,
      body: IdRequest,
      response: null,
      handler: (ctx, { body }) => svc.remove(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/spu/getSpu',
      channels: ['manage'],
      auth: staff,
      permission: CATALOG_READ,
      summary: 'One resource',
      tags,
      body: IdRequest,
      response: SpuResponse,
      handler: (ctx, { body }) => svc.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/spu/querySpuList',
      channels: ['manage'],
      auth: staff,
      permission: CATALOG_READ,
      summary: 'Resources matching the filters, newest first',
      tags,
      body: SpuListRequest,
      response: Type.Array(SpuResponse),
      handler: (ctx, { body }) => svc.list(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/spu/querySpuPage',
      channels: ['manage'],
      auth: staff,
      permission: CATALOG_READ,
      summary: 'A page of resources matching the filters, newest first',
      tags,
      body: SpuPageRequest,
      response: PageInfo(SpuResponse),
      handler: (ctx, { body }) => svc.page(authed(ctx), body),
    }),
  ];
}

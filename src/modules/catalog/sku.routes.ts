import { Type } from 'typebox';
import { authed } from '../../platform/http/context.js';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { IdRequest, PageInfo } from '../../platform/http/schemas.js';
import { SkuAddRequest, SkuListRequest, SkuPageRequest, SkuResponse, SkuUpdateRequest } from './sku.schemas.js';
import type { SkuService } from './sku.service.js';
import { CATALOG_READ, CATALOG_WRITE } from './spu.routes.js';

const tags = ['sku'];
const staff = { kinds: ['admin' as const] };
const MODULE = '商品规格';

/** Spec B 4.6 addSku, channel M; get, list, page, update and delete are what operators need besides. */
export function skuRoutes(svc: SkuService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/sku/addSku',
      channels: ['manage'],
      auth: staff,
      permission: CATALOG_WRITE,
      operation: [MODULE, '新增SKU'],
      summary: 'Add a SKU of a resource, with its entrances',
      tags,
      body: SkuAddRequest,
      response: SkuResponse,
      handler: (ctx, { body }) => svc.add(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/sku/updateSku',
      channels: ['manage'],
      auth: staff,
      permission: CATALOG_WRITE,
      operation: [MODULE, '修改SKU'],
      summary: 'Update a SKU (absent fields are kept; skuEntranceList, when given, is the whole list)',
      tags,
      body: SkuUpdateRequest,
      response: null,
      handler: (ctx, { body }) => svc.update(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/sku/deleteSku',
      channels: ['manage'],
      auth: staff,
      permission: CATALOG_WRITE,
      operation: [MODULE, '删除SKU'],
      summary:
        'Delete a SKU and its entrances when nothing refers to them (logical delete); status 3 takes it off shelf instead',
      tags,
      body: IdRequest,
      response: null,
      handler: (ctx, { body }) => svc.remove(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/sku/getSku',
      channels: ['manage'],
      auth: staff,
      permission: CATALOG_READ,
      summary: 'One SKU with its entrances',
      tags,
      body: IdRequest,
      response: SkuResponse,
      handler: (ctx, { body }) => svc.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/sku/querySkuList',
      channels: ['manage'],
      auth: staff,
      permission: CATALOG_READ,
      summary: 'SKUs matching the filters, newest first',
      tags,
      body: SkuListRequest,
      response: Type.Array(SkuResponse),
      handler: (ctx, { body }) => svc.list(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/sku/querySkuPage',
      channels: ['manage'],
      auth: staff,
      permission: CATALOG_READ,
      summary: 'A page of SKUs matching the filters, newest first',
      tags,
      body: SkuPageRequest,
      response: PageInfo(SkuResponse),
      handler: (ctx, { body }) => svc.page(authed(ctx), body),
    }),
  ];
}

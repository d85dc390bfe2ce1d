import { Type } from 'typebox';
import { authed } from '../../platform/http/context.js';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { IdRequest, PageInfo } from '../../platform/http/schemas.js';
import {
  ContractAddRequest,
  ContractListRequest,
  ContractPageRequest,
  ContractResponse,
  ContractUpdateRequest,
} from './contract.schemas.js';
import type { ContractService } from './contract.service.js';

const tags = ['merchantContract'];
const staff = { kinds: ['admin' as const] };
const MODULE = '商户合同';
const READ = 'contract:read';
const WRITE = 'contract:write';
const P = '/merchantContract';

/** Spec B 4.6 addMerchantContract, channel M; get, list, page, update and delete are what operators need besides. */
export function contractRoutes(svc: ContractService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: `${P}/addMerchantContract`,
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '新增合同'],
      summary:
        "Record a contract between party A and party B (names resolved; party tells the caller's side); nothing is required: party A defaults to the keeper, party B may follow",
      tags,
      body: ContractAddRequest,
      response: ContractResponse,
      handler: (ctx, { body }) => svc.add(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/updateMerchantContract`,
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '修改合同'],
      summary: 'Update a contract your merchant or shop keeps',
      tags,
      body: ContractUpdateRequest,
      response: null,
      handler: (ctx, { body }) => svc.update(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/deleteMerchantContract`,
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '删除合同'],
      summary: 'Delete a contract your merchant or shop keeps (logical delete)',
      tags,
      body: IdRequest,
      response: null,
      handler: (ctx, { body }) => svc.remove(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/getMerchantContract`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'One contract',
      tags,
      body: IdRequest,
      response: ContractResponse,
      handler: (ctx, { body }) => svc.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/queryMerchantContractList`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'Contracts your merchant or shop keeps or is a party to, newest first',
      tags,
      body: ContractListRequest,
      response: Type.Array(ContractResponse),
      handler: (ctx, { body }) => svc.list(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/queryMerchantContractPage`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'A page of the contracts your merchant or shop keeps or is a party to, newest first',
      tags,
      body: ContractPageRequest,
      response: PageInfo(ContractResponse),
      handler: (ctx, { body }) => svc.page(authed(ctx), body),
    }),
  ];
}

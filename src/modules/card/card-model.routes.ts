import { Type } from 'typebox';
import { authed } from '../../platform/http/context.js';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { IdRequest, PageInfo } from '../../platform/http/schemas.js';
import type { CardModelService } from './card-model.service.js';
import type { CardRuleService } from './card-rule.service.js';
import {
  CardModelAddRequest, CardModelAllocationRequest, CardModelIdRequest, CardModelListRequest, CardModelPageRequest, CardModelResponse,
  CardModelStatusRequest, CardModelUpdateRequest, PriceHistoryResponse,
} from './card-model.schemas.js';
import { PriceAddRequest, PriceResponse, PriceUpdateRequest, RuleAddRequest, RuleIdRequest, RuleResponse, RuleUpdateRequest } from './card-rule.schemas.js';

const tags = ['card model'];
const staff = { kinds: ['admin' as const] };
const MODULE = '卡型管理';
const READ = 'cardModel:read';
const WRITE = 'cardModel:write';

/** Card models, their resource rules and dated prices on the manage channel (issue 15). */
export function cardModelRoutes(svc: { models: CardModelService; rules: CardRuleService }): RouteSpec[] {
  const { models, rules } = svc;
  return [
    defineRoute({
      method: 'POST', path: '/cardModel/addCardModel', channels: ['manage'], auth: staff, permission: WRITE, operation: [MODULE, '新增卡型'],
      summary: 'Add a card model (price in cents, validity in months); platform users for the platform or a merchant, merchant users for their own', tags,
      body: CardModelAddRequest, response: CardModelResponse,
      handler: (ctx, { body }) => models.add(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST', path: '/cardModel/updateCardModel', channels: ['manage'], auth: staff, permission: WRITE, operation: [MODULE, '修改卡型'],
      summary: 'Update a card model; a new price or validity applies from now and the old one stays in the price history (activated cards keep their expiry)', tags,
      body: CardModelUpdateRequest, response: null,
      handler: (ctx, { body }) => models.update(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST', path: '/cardModel/updateCardModelStatus', channels: ['manage'], auth: staff, permission: WRITE, operation: [MODULE, '启用/停用卡型'],
      summary: 'Enable (1) or disable (0) a card model: a disabled one gets no new batches or activations', tags,
      body: CardModelStatusRequest, response: null,
      handler: (ctx, { body }) => models.setStatus(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST', path: '/cardModel/updateCardModelAllocation', channels: ['manage'], auth: staff, permission: WRITE, operation: [MODULE, '设置参与分摊'],
      summary: 'Switch a card model\'s part in the monthly allocation on or off', tags,
      body: CardModelAllocationRequest, response: null,
      handler: (ctx, { body }) => models.setAllocation(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST', path: '/cardModel/getCardModel', channels: ['manage'], auth: staff, permission: READ,
      summary: 'One card model', tags, body: IdRequest, response: CardModelResponse,
      handler: (ctx, { body }) => models.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST', path: '/cardModel/queryCardModelList', channels: ['manage'], auth: staff, permission: READ,
      summary: 'Card models you may see (merchant users: their own and those admitting their resources), newest first', tags,
      body: CardModelListRequest, response: Type.Array(CardModelResponse),
      handler: (ctx, { body }) => models.list(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST', path: '/cardModel/queryCardModelPage', channels: ['manage'], auth: staff, permission: READ,
      summary: 'A page of card models matching the filters, newest first', tags,
      body: CardModelPageRequest, response: PageInfo(CardModelResponse),
      handler: (ctx, { body }) => models.page(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST', path: '/cardModel/queryCardModelPriceHistory', channels: ['manage'], auth: staff, permission: READ,
      summary: 'Every price and validity a card model has had, oldest first', tags,
      body: CardModelIdRequest, response: Type.Array(PriceHistoryResponse),
      handler: (ctx, { body }) => models.priceHistory(authed(ctx), body.cardModelId),
    }),

    defineRoute({
      method: 'POST', path: '/cardModel/addCardModelRule', channels: ['manage'], auth: staff, permission: WRITE, operation: [MODULE, '新增资源规则'],
      summary: 'Admit a resource to a card model with its settlement way and parameters (one rule per resource; 409 for a second)', tags,
      body: RuleAddRequest, response: RuleResponse,
      handler: (ctx, { body }) => rules.add(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST', path: '/cardModel/updateCardModelRule', channels: ['manage'], auth: staff, permission: WRITE, operation: [MODULE, '修改资源规则'],
      summary: 'Change a rule\'s settlement way and parameters (settlements already made keep theirs)', tags,
      body: RuleUpdateRequest, response: null,
      handler: (ctx, { body }) => rules.update(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST', path: '/cardModel/deleteCardModelRule', channels: ['manage'], auth: staff, permission: WRITE, operation: [MODULE, '删除资源规则'],
      summary: 'Remove a resource from a card model (logical delete)', tags,
      body: IdRequest, response: null,
      handler: (ctx, { body }) => rules.remove(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST', path: '/cardModel/getCardModelRule', channels: ['manage'], auth: staff, permission: READ,
      summary: 'One rule with its price periods', tags, body: IdRequest, response: RuleResponse,
      handler: (ctx, { body }) => rules.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST', path: '/cardModel/queryCardModelRuleList', channels: ['manage'], auth: staff, permission: READ,
      summary: 'The rules of a card model with their price periods', tags, body: CardModelIdRequest, response: Type.Array(RuleResponse),
      handler: (ctx, { body }) => rules.list(authed(ctx), body.cardModelId),
    }),
    defineRoute({
      method: 'POST', path: '/cardModel/addCardModelRulePrice', channels: ['manage'], auth: staff, permission: WRITE, operation: [MODULE, '新增价格区间'],
      summary: 'Add a dated price period to a rule (inclusive dates); 409 naming the period it would overlap', tags,
      body: PriceAddRequest, response: PriceResponse,
      handler: (ctx, { body }) => rules.addPrice(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST', path: '/cardModel/updateCardModelRulePrice', channels: ['manage'], auth: staff, permission: WRITE, operation: [MODULE, '修改价格区间'],
      summary: 'Change a price period; 409 naming the period it would overlap', tags,
      body: PriceUpdateRequest, response: null,
      handler: (ctx, { body }) => rules.updatePrice(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST', path: '/cardModel/deleteCardModelRulePrice', channels: ['manage'], auth: staff, permission: WRITE, operation: [MODULE, '删除价格区间'],
      summary: 'Delete a price period', tags, body: IdRequest, response: null,
      handler: (ctx, { body }) => rules.removePrice(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST', path: '/cardModel/queryCardModelRulePriceList', channels: ['manage'], auth: staff, permission: READ,
      summary: 'A rule\'s price periods by start date', tags, body: RuleIdRequest, response: Type.Array(PriceResponse),
      handler: (ctx, { body }) => rules.prices(authed(ctx), body.ruleId),
    }),
  ];
}

import { Type } from 'typebox';
import { authed } from '../../platform/http/context.js';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { IdRequest, PageInfo } from '../../platform/http/schemas.js';
import { CheckDetailResponse, DetailResponse } from './settlement.schemas.js';
import {
  EstimationCardAddRequest,
  EstimationCardCalcDetailQueryRequest,
  EstimationCardCheckCalcDetailQueryRequest,
  EstimationCardCheckDetailPageRequest,
  EstimationCardInfoResponse,
  EstimationCardIssueNumGetRequest,
  EstimationCardPageRequest,
  EstimationCardPageResponse,
  SubmitEstimationRequest,
  SubmitEstimationResponse,
} from './estimation.schemas.js';
import type { EstimationService } from './estimation.service.js';

const tags = ['estimation'];
const staff = { kinds: ['admin' as const] };
const MODULE = '结算预估';
const READ = 'estimation:read';
const WRITE = 'estimation:write';
const P = '/estimation';

/** Spec A 4.4, channel M (platform users). */
export function estimationRoutes(svc: EstimationService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: `${P}/calcEstimationCard`,
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '计算结算预估'],
      summary:
        "Compute every resource's settlement detail of the card model for the period; the result is kept 2 hours",
      tags,
      body: EstimationCardAddRequest,
      response: EstimationCardInfoResponse,
      handler: (ctx, { body }) => svc.calc(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/getEstimationCard`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'A submitted estimation sheet, or a calculation still held',
      tags,
      body: IdRequest,
      response: EstimationCardInfoResponse,
      handler: (ctx, { body }) => svc.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/getEstimationCardIssueNum`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'Cards of the card model activated in the period',
      tags,
      body: EstimationCardIssueNumGetRequest,
      response: Type.Integer(),
      handler: (ctx, { body }) => svc.issueNum(authed(ctx), body.cardModelId, body.estimationPeriod),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/queryEstimationCardCalcDetailPage`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary:
        'A page of the details of the latest calculation of the card model and period while it is held (2 hours); an empty page when none is held',
      tags,
      body: EstimationCardCalcDetailQueryRequest,
      response: PageInfo(DetailResponse),
      handler: (ctx, { body }) => svc.calcDetailPage(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/queryEstimationCardCheckCalcDetailPage`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary:
        'A page of the check records behind a detail (virtual id) of the latest calculation; an empty page when none is held, 404 for an id not in it',
      tags,
      body: EstimationCardCheckCalcDetailQueryRequest,
      response: PageInfo(CheckDetailResponse),
      handler: (ctx, { body }) => svc.checkCalcDetailPage(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/queryEstimationCardCheckDetailPage`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'A page of the check records behind a detail of a submitted sheet',
      tags,
      body: EstimationCardCheckDetailPageRequest,
      response: PageInfo(CheckDetailResponse),
      handler: (ctx, { body }) => svc.checkDetailPage(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/submitEstimationCard`,
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '提交结算预估'],
      summary:
        'Persist a held calculation as a sheet and create one settlement order per settlement merchant (status 1)',
      tags,
      body: SubmitEstimationRequest,
      response: SubmitEstimationResponse,
      handler: (ctx, { body }) => svc.submit(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/queryEstimationCardPage`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'A page of submitted estimation sheets, newest first',
      tags,
      body: EstimationCardPageRequest,
      response: PageInfo(EstimationCardPageResponse),
      handler: (ctx, { body }) => svc.page(authed(ctx), body),
    }),
  ];
}

import { Type } from 'typebox';
import { authed } from '../../platform/http/context.js';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { IdRequest, PageInfo } from '../../platform/http/schemas.js';
import {
  DistributeAmountCalcRequest,
  DistributeBatch,
  DistributeBatchPageRequest,
  DistributeDetail,
  DistributeDetailPageRequest,
  ExportDistributeDetailRequest,
  PreviewItem,
} from './allocation.schemas.js';
import type { BatchService } from './batch.service.js';
import type { CalcService } from './calc.service.js';
import { XLSX_FILE } from '../../platform/export/xlsx-export.js';

const tags = ['allocation'];
const staff = { kinds: ['admin' as const] };
const MODULE = '月度分配';
const READ = 'allocation:read';
const EXECUTE = 'allocation:execute';
const DELETE = 'allocation:delete';
const P = '/distributeAmount';

/** Which months a run covers (spec A 2.5: only `year` is required), for the OpenAPI document. */
const MONTHS_OF_A_RUN = [
  'Only `year` is required (2020–2099). `months` wins over `month` (duplicates removed, sorted; `months: []` counts as absent).',
  'With neither, a run covers the months of `year` that have begun in the service time zone when the request arrives: all',
  'twelve for a past year; January up to and including the current month for the current year (the current month as far',
  'as it has gone; run it again later); none for a future year, answered as an empty list (executeCalc saves nothing).',
  'An explicit `month` or `months` is computed as asked. Empty `cardModelIds`: every card model taking part in allocation.',
].join(' ');

/** Spec A 4.3, channel M. */
export function allocationRoutes(calc: CalcService, batches: BatchService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: `${P}/executeCalc`,
      channels: ['manage'],
      auth: staff,
      permission: EXECUTE,
      operation: [MODULE, '执行分配计算'],
      summary:
        'Calculate and save the allocation of each month and card model, replacing what the scope held; year alone: its months begun so far (platform users)',
      tags,
      description: MONTHS_OF_A_RUN,
      body: DistributeAmountCalcRequest,
      response: Type.Array(DistributeBatch),
      handler: (ctx, { body }) => calc.execute(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/previewCalc`,
      channels: ['manage'],
      auth: staff,
      permission: EXECUTE,
      summary:
        'The allocation executeCalc would save, one element per month and card model; year alone: its months begun so far; nothing is saved (platform users)',
      tags,
      description: MONTHS_OF_A_RUN,
      body: DistributeAmountCalcRequest,
      response: Type.Array(PreviewItem),
      handler: (ctx, { body }) => calc.preview(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/getDistributeBatch`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'One allocation batch',
      tags,
      body: IdRequest,
      response: DistributeBatch,
      handler: (ctx, { body }) => batches.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/queryDistributeBatchPage`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'A page of allocation batches, latest month first (cardModelName is found within names)',
      tags,
      body: DistributeBatchPageRequest,
      response: PageInfo(DistributeBatch),
      handler: (ctx, { body }) => batches.page(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/queryDistributeDetailPage`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary:
        "A page of a batch's details by park (keywords in the park name); merchant and shop users see their parks",
      tags,
      body: DistributeDetailPageRequest,
      response: PageInfo(DistributeDetail),
      handler: (ctx, { body }) => batches.detailPage(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/deleteDistributeBatch`,
      channels: ['manage'],
      auth: staff,
      permission: DELETE,
      operation: [MODULE, '删除分配批次'],
      summary:
        "Delete a batch, its details and its month's deferred-revenue ledger row for its card model (platform users)",
      tags,
      body: IdRequest,
      response: null,
      handler: (ctx, { body }) => batches.remove(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'ANY',
      path: `${P}/exportDistributeDetail`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary:
        "A batch's details as a streamed .xlsx with a total row; a platform user's complete export marks the batch exported (3)",
      tags,
      body: ExportDistributeDetailRequest,
      response: 'file',
      file: XLSX_FILE,
      handler: (ctx, { body }) => batches.exportDetails(authed(ctx), body.batchId),
    }),
  ];
}

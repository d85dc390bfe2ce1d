import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { authed } from '../../platform/http/context.js';
import { IdRequest, PageInfo } from '../../platform/http/schemas.js';
import type { CheckFailService } from './check-fail.service.js';
import type { CheckinService } from './checkin.service.js';
import type { ConsumeRecordService } from './consume-record.service.js';
import {
  CheckerCardCheckStatBean,
  CheckerCardCheckStatRequest,
  CheckerConsumeRecordResponse,
  CheckFailPageRequest,
  CheckFailResponse,
  CheckInRequest,
  CheckInResponse,
} from './checkin.schemas.js';
import { FaceError } from '../../platform/face/face.errors.js';
import { CheckinError } from './checkin.errors.js';

const tags = ['checker'];
const verifier = { kinds: ['checker' as const] };
const MODULE = '核销记录';

/** Check-in and the verifier's records (spec B 4.2, channel A); the failed-scan log (channel M). */
export function checkinRoutes(svc: {
  checkin: CheckinService;
  records: ConsumeRecordService;
  fails: CheckFailService;
}): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/checker/addCheckerConsumeRecord',
      errcodes: [CheckinError, FaceError],
      channels: ['app'],
      auth: verifier,
      operation: [MODULE, '核销'],
      summary:
        'Check a card in at a scenic spot: by card number, ID document or face. Answers the check with the tourist, ' +
        'the card model and the entries left today; each refusal has its own code (1_013_000_001–012). A nonce makes a re-sent ' +
        'scan answer its first answer; checkTime (at most 72 h old) judges an offline scan at that time',
      tags,
      body: CheckInRequest,
      response: CheckInResponse,
      handler: (ctx, { body }) => svc.checkin.checkIn(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/checker/getCheckerConsumeRecord',
      channels: ['app'],
      auth: verifier,
      summary:
        "One check record: the verifier's own, or one made at a scenic spot the verifier checks at (revoked ones show isDeleted)",
      tags,
      body: IdRequest,
      response: CheckerConsumeRecordResponse,
      handler: (ctx, { body }) => svc.records.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/checker/deleteCheckerConsumeRecord',
      errcodes: [CheckinError.RECORD_NOT_YOURS, CheckinError.RECORD_NOT_TODAY],
      channels: ['app'],
      auth: verifier,
      operation: [MODULE, '撤销核销'],
      summary: 'Revoke one of your own checks of today; its entries are given back to the card for the day',
      tags,
      body: IdRequest,
      response: null,
      handler: (ctx, { body }) => svc.records.remove(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'ANY',
      path: '/checker/cardCheckStat',
      errcodes: [CheckinError.NOT_ALLOWED_HERE],
      channels: ['app'],
      auth: verifier,
      summary: 'Today at a scenic spot you check at: people (distinct cards), checks, and your own checks',
      tags,
      body: CheckerCardCheckStatRequest,
      response: CheckerCardCheckStatBean,
      handler: (ctx, { body }) => svc.records.stat(authed(ctx), body.skuId),
    }),
    defineRoute({
      method: 'POST',
      path: '/checker/queryCheckFailPage',
      channels: ['manage'],
      auth: { kinds: ['admin'] },
      permission: 'checker:read',
      summary: 'A page of refused scans at your scenic spots, newest first, with the reason the verifier was given',
      tags,
      body: CheckFailPageRequest,
      response: PageInfo(CheckFailResponse),
      handler: (ctx, { body }) => svc.fails.page(authed(ctx), body),
    }),
  ];
}

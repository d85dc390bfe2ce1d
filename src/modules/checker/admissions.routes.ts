import { Type } from 'typebox';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { authed } from '../../platform/http/context.js';
import { EVENT_STREAM_FILE } from '../../platform/http/event-stream.js';
import { ErrorCode } from '../../platform/errors.js';
import type { AdmissionsService } from './admissions.service.js';
import { AdmissionStreamQuery, SpotAdmissionToday, SpotAdmissionTodayRequest } from './admissions.schemas.js';

const tags = ['checker'];
const staff = { kinds: ['admin' as const] };

/** Today's admissions against capacity per scenic spot, and their live stream (issue 39, channel M). */
export function admissionsRoutes(svc: AdmissionsService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/checker/querySpotAdmissionToday',
      channels: ['manage'],
      auth: staff,
      permission: 'checker:read',
      summary:
        'Today (service time zone) per scenic spot in your scope that has a capacity or admitted someone: entries admitted against the daily capacity and each time slot',
      tags,
      body: SpotAdmissionTodayRequest,
      response: Type.Array(SpotAdmissionToday),
      handler: (ctx, { body }) => svc.today(authed(ctx), body),
    }),
    defineRoute({
      method: 'GET',
      path: '/checker/admissionStream',
      errcodes: [ErrorCode.TOO_MANY_REQUESTS],
      channels: ['manage'],
      auth: staff,
      permission: 'checker:read',
      summary: 'Live admissions per scenic spot in your scope, as server-sent events (the live board reads it)',
      description:
        'The staff token goes in the Authorization header as on every manage call (read the stream with fetch, not ' +
        'EventSource). The first event, `snapshot`, holds `{at, spots}`: per spot the fields of querySpotAdmissionToday ' +
        'and `minutes`, the entries per minute of the last 60 minutes. Then an `admission` event `{at, skuId, skuName, ' +
        "dailyCapacity, admitted, minutes}` whenever a spot's figure of a minute or of the day changes on any instance " +
        '(absolute figures; `minutes` holds the changed minutes), within about two seconds, and a `: heartbeat` comment ' +
        'every 15 s. A refusal before the stream starts is the JSON envelope; an instance holding ADMISSION_STREAMS_MAX ' +
        'streams answers 429. The stream ends when the client goes or the instance shuts down: reconnect then.',
      tags,
      query: AdmissionStreamQuery,
      response: 'file',
      file: EVENT_STREAM_FILE,
      handler: (ctx, { query }, { request }) =>
        svc.open(authed(ctx), query, (err) => request.log.warn({ err }, 'admission poll failed')),
    }),
  ];
}

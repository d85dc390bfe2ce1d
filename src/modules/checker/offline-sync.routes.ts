import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { authed } from '../../platform/http/context.js';
import { CheckinError } from './checkin.errors.js';
import type { OfflineSyncService } from './offline-sync.service.js';
import { SYNC_MAX_SCANS, SyncOfflineChecksRequest, SyncOfflineChecksResponse } from './offline-sync.schemas.js';

/** The offline gate's upload (channel A, issue 39). */
export function offlineSyncRoutes(svc: OfflineSyncService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/checker/syncOfflineChecks',
      errcodes: [CheckinError],
      channels: ['app'],
      auth: { kinds: ['checker'] },
      operation: ['核销记录', '离线核销上传'],
      summary:
        `Upload up to ${SYNC_MAX_SCANS} scans a gate made offline (nonce, card number, spot, gate, time at most 72 h ago). ` +
        'Each is judged at its own time, in time order, and answered on its own in the request order: recorded; ' +
        "conflict (recorded, as the visit happened, although it broke the card's daily limit or the spot's capacity); " +
        'refused with the code addCheckerConsumeRecord gives; duplicate (a re-sent nonce: its first answer). ' +
        'Every scan is stored before the answer, so a cut request is simply sent again',
      tags: ['checker'],
      body: SyncOfflineChecksRequest,
      response: SyncOfflineChecksResponse,
      handler: (ctx, { body }) => svc.sync(authed(ctx), body),
    }),
  ];
}

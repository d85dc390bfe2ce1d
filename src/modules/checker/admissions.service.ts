import { scopeOf, type Scope } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import { AppError, badRequest, ErrorCode } from '../../platform/errors.js';
import { EventStream } from '../../platform/http/event-stream.js';
import type { AuthedContext } from '../../platform/http/context.js';
import { formatDateTime } from '../../platform/time.js';
import { dayOf, inScope, type AdmissionChange, type AdmissionHub } from './admission-stream.js';
import { minutesSince, slotsOfDay, spotsOfDay, type Day } from './admissions.repository.js';
import { SKU_IDS_MAX, type SpotAdmissionToday } from './admissions.schemas.js';

/** The minutes the stream's first event shows per spot. */
export const SNAPSHOT_MINUTES = 60;
const HEARTBEAT_MS = 15_000;

const hhmm = (minute: number) =>
  `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;

/** What the stream's first event holds per spot: today's figures and the last hour per minute. */
export interface SpotSnapshot extends SpotAdmissionToday {
  minutes: Array<{ minute: string; admitted: number }>;
}

/**
 * Today's admissions per scenic spot against its capacity on the manage channel, as one answer and as
 * a live stream (issue 39), scoped as every manage read: the platform sees every spot, a merchant's
 * staff its spots, a shop's staff its shop's.
 */
export function createAdmissionsService(deps: { db: Db; hub: AdmissionHub; now?: () => Date }) {
  const { db, hub } = deps;
  const now = deps.now ?? (() => new Date());

  async function today(scope: Scope, ids: number[] | null, day: Day): Promise<SpotAdmissionToday[]> {
    const spots = await spotsOfDay(db, scope, ids, day);
    const slots = await slotsOfDay(
      db,
      spots.filter((s) => s.hasCapacity).map((s) => s.skuId),
      day,
    );
    const bySpot = new Map<number, SpotAdmissionToday['slots']>();
    for (const sl of slots) {
      let list = bySpot.get(sl.skuId);
      if (!list) bySpot.set(sl.skuId, (list = []));
      list.push({
        startTime: hhmm(sl.startMinute),
        endTime: hhmm(sl.endMinute),
        capacity: sl.capacity,
        admitted: sl.admitted,
      });
    }
    return spots.map((s) => ({
      skuId: s.skuId,
      skuName: s.skuName,
      dailyCapacity: s.dailyCapacity,
      admitted: s.admitted,
      slots: bySpot.get(s.skuId) ?? [],
    }));
  }

  return {
    today(ctx: AuthedContext, body: { skuIds?: number[] | null }): Promise<SpotAdmissionToday[]> {
      const ids = body.skuIds && body.skuIds.length > 0 ? body.skuIds : null;
      return today(scopeOf(ctx.account), ids, dayOf(now()));
    },

    /**
     * Opens a stream: everything that can refuse runs first (the scope, the ids, the instance's stream
     * places, the first read), so a refusal is the JSON envelope. Subscribed before the first read,
     * so no change falls between the snapshot and the stream; the events carry absolute figures, so
     * one seen twice does no harm.
     */
    async open(
      ctx: AuthedContext,
      query: { skuIds?: string | null },
      onPollError: (err: unknown) => void,
    ): Promise<EventStream> {
      const scope = scopeOf(ctx.account);
      const ids = parseIds(query.skuIds);
      if (!hub.acquire()) {
        throw new AppError(
          ErrorCode.TOO_MANY_REQUESTS,
          `this instance already serves ${hub.maxStreams} admission streams (ADMISSION_STREAMS_MAX): try again later`,
        );
      }
      const wanted = ids ? new Set(ids) : null;
      const pending: AdmissionChange[] = [];
      let sink: { change(c: AdmissionChange): void; end(): void } | null = null;
      const unsubscribe = hub.subscribe(
        {
          change(c) {
            if (!inScope(scope, c.merchantId, c.shopId) || (wanted && !wanted.has(c.skuId))) return;
            if (sink) sink.change(c);
            else pending.push(c);
          },
          end() {
            sink?.end();
          },
        },
        onPollError,
      );
      const stop = () => {
        unsubscribe();
        hub.release();
      };
      let snapshot: { at: string; spots: SpotSnapshot[] };
      try {
        const at = now();
        const spots = await today(scope, ids, dayOf(at));
        const from = new Date(Math.floor(at.getTime() / 60_000) * 60_000 - (SNAPSHOT_MINUTES - 1) * 60_000);
        const minutes = await minutesSince(
          db,
          spots.map((s) => s.skuId),
          from,
        );
        const bySpot = new Map<number, SpotSnapshot['minutes']>();
        for (const m of minutes) {
          let list = bySpot.get(m.skuId);
          if (!list) bySpot.set(m.skuId, (list = []));
          list.push({ minute: formatDateTime(m.minute)!, admitted: m.admitted });
        }
        snapshot = {
          at: formatDateTime(at)!,
          spots: spots.map((s) => ({ ...s, minutes: bySpot.get(s.skuId) ?? [] })),
        };
      } catch (err) {
        stop();
        throw err;
      }
      return new EventStream({
        heartbeatMs: HEARTBEAT_MS,
        start(out) {
          out.event('snapshot', snapshot);
          const send = (c: AdmissionChange) =>
            out.event('admission', {
              at: c.at,
              skuId: c.skuId,
              skuName: c.skuName,
              dailyCapacity: c.dailyCapacity,
              admitted: c.admitted,
              minutes: c.minutes,
            });
          for (const c of pending.splice(0)) send(c);
          sink = { change: send, end: () => out.end() };
        },
        stop,
      });
    },
  };
}

function parseIds(text: string | null | undefined): number[] | null {
  if (!text) return null;
  const ids = [...new Set(text.split(',').map(Number))];
  if (ids.length > SKU_IDS_MAX) throw badRequest(`skuIds is invalid: at most ${SKU_IDS_MAX} ids`);
  if (ids.some((id) => !Number.isSafeInteger(id))) throw badRequest('skuIds is invalid: ids must be safe integers');
  return ids;
}

export type AdmissionsService = ReturnType<typeof createAdmissionsService>;

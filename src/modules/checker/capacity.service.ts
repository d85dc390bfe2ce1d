import { assertInScope } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import type { Executor } from '../../platform/db/executor.js';
import { loggedTransaction } from '../../platform/db/transaction.js';
import { dayText } from '../../platform/date-range.js';
import { badRequest, conflict, notFound } from '../../platform/errors.js';
import type { AuthedContext } from '../../platform/http/context.js';
import * as repo from './capacity.repository.js';
import type { SetSpotCapacity, SpotCapacitySlotView, SpotCapacityView } from './capacity.schemas.js';

const minuteOf = (clock: string) => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));
const clockOf = (minute: number) =>
  `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;

/** The request's slots as minutes of the day, in order; 400 when one is empty or two overlap. */
function slotsOf(slots: SpotCapacitySlotView[]): repo.Slot[] {
  const minutes = slots
    .map((s) => ({ startMinute: minuteOf(s.startTime), endMinute: minuteOf(s.endTime), capacity: s.capacity }))
    .sort((a, b) => a.startMinute - b.startMinute);
  minutes.forEach((s, i) => {
    if (s.endMinute <= s.startMinute)
      throw badRequest(`slots: ${clockOf(s.startMinute)}-${clockOf(s.endMinute)} must end after it starts`);
    const next = minutes[i + 1];
    if (next && next.startMinute < s.endMinute)
      throw badRequest(
        `slots: ${clockOf(s.startMinute)}-${clockOf(s.endMinute)} and ${clockOf(next.startMinute)}-${clockOf(next.endMinute)} overlap`,
      );
  });
  return minutes;
}

const toView = (spot: repo.SpotOwner, capacity: repo.SpotCapacity | null): SpotCapacityView => ({
  skuId: spot.skuId,
  skuName: spot.skuName,
  dailyCapacity: capacity?.dailyCapacity ?? null,
  slots: (capacity?.slots ?? []).map((s) => ({
    startTime: clockOf(s.startMinute),
    endTime: clockOf(s.endMinute),
    capacity: s.capacity,
  })),
});

/**
 * A scenic spot's capacity on the manage channel (docs/domain.md §4.1): its daily capacity and time
 * slots, which the check-in statement enforces exactly (docs/adr/0105-exact-spot-capacity.md). A
 * merchant's staff manage its spots, a shop's staff its shop's, the platform all.
 */
export function createCapacityService(deps: { db: Db; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  async function spotInScope(ex: Executor, ctx: AuthedContext, skuId: number): Promise<repo.SpotOwner> {
    const spot = await repo.findSpot(ex, skuId);
    if (!spot) throw notFound('scenic spot (skuId)');
    assertInScope(ctx.account, spot);
    return spot;
  }

  return {
    /**
     * Sets, changes or (null and no slots) removes a spot's capacity, in one transaction that first
     * lets the scans in flight end and holds the next ones (a few milliseconds), so the admissions
     * counted under the new bounds are exactly the day's living checks, set mid-day or not.
     */
    async set(ctx: AuthedContext, input: SetSpotCapacity): Promise<void> {
      const slots = slotsOf(input.slots ?? []);
      const capacity =
        input.dailyCapacity === null && slots.length === 0 ? null : { dailyCapacity: input.dailyCapacity, slots };
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const spot = await spotInScope(trx, ctx, input.skuId);
          if (!(await repo.lockCapacities(trx))) {
            throw conflict('the capacities are busy (a long read holds them): please save again in a moment');
          }
          await repo.replaceCapacity(trx, spot, capacity, ctx.account.id, dayText(now()));
        },
        () => input.skuId,
      );
    },

    async get(ctx: AuthedContext, skuId: number): Promise<SpotCapacityView> {
      const spot = await spotInScope(db, ctx, skuId);
      return toView(spot, await repo.findCapacity(db, skuId));
    },
  };
}

export type CapacityService = ReturnType<typeof createCapacityService>;

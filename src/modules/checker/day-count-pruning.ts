import type { Db } from '../../platform/db/database.js';
import { dayText } from '../../platform/date-range.js';
import type { BackgroundJob } from '../../platform/jobs.js';
import { OFFLINE_MAX_AGE_H } from './checkin-rules.js';
import { deleteDayCountsBefore } from './day-count.repository.js';
import { deleteAdmissionCountsBefore } from './capacity.repository.js';

/** Rows per statement: each delete stays short (PGlite runs one statement at a time). */
const PRUNE_BATCH = 5000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;
/** A day beyond the offline window, for instances whose clocks differ. */
const MARGIN_H = 24;

/**
 * The first day whose counter rows a scan may still raise: a scan is judged on the day of its time,
 * at most OFFLINE_MAX_AGE_H old, and only today's checks can be revoked.
 */
export function firstLiveCounterDay(now: Date): string {
  return dayText(new Date(now.getTime() - (OFFLINE_MAX_AGE_H + MARGIN_H) * 3_600_000));
}

/**
 * Deletes the daily check counters of days no scan can reach any more, until none is left. A counter
 * only caches the entries of its day's living checks (the next scan of a day re-seeds it from the
 * records), so nothing is lost; without this the table grows by a row per card, spot and day.
 */
export async function pruneDayCounts(db: Db, now = new Date()): Promise<number> {
  const before = firstLiveCounterDay(now);
  let total = 0;
  for (;;) {
    const n = await deleteDayCountsBefore(db, before, PRUNE_BATCH);
    total += n;
    if (n < PRUNE_BATCH) break;
  }
  // the spots' admission counters the same way (docs/adr/0105-exact-spot-capacity.md)
  for (;;) {
    const n = await deleteAdmissionCountsBefore(db, before, PRUNE_BATCH);
    total += n;
    if (n < PRUNE_BATCH) return total;
  }
}

export function dayCountPruningJob(db: Db): BackgroundJob {
  return {
    name: 'prune check day counters',
    everyMs: PRUNE_EVERY_MS,
    run: async () => void (await pruneDayCounts(db)),
  };
}

import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.js';
import { batchedRead } from '../../platform/db/batched-read.js';
import { compiledOnce } from '../../platform/db/prepared.js';

/**
 * The tally of living members by status and channel (migration 0029), kept by these triggers (rows;
 * TRUNCATE). A bulk load that runs without triggers (the demo generator's fast load) may skip them
 * and must then call rebuildMemberTally.
 */
export const MEMBER_TALLY_TRIGGERS = ['member_tally_trg', 'member_tally_truncate_trg'] as const;

// On every unfiltered member page: built and compiled once. A filter left out is null.
const livingMembers = compiledOnce(
  ['status', 'channel'],
  (p) => sql<{ n: string | number }>`
  select coalesce(sum(living), 0) as n from member_tally
  where (${p.status}::smallint is null or status = ${p.status}::smallint)
    and (${p.channel}::smallint is null or channel = ${p.channel}::smallint)`,
);

type TallyFilter = { status: number | null; channel: number | null };

/** Member pages asking for the same total at the same time read it once (a page of each is its own statement). */
const sharedCount = batchedRead<'n', number, TallyFilter>(
  async (db, _keys, f) => {
    const r = await livingMembers(db, f);
    return [['n', Number(r.rows[0].n)]];
  },
  (f) => `${f.status}:${f.channel}`,
);

/** How many living members have this status and channel (either null: any), from the tally. */
export async function countLivingMembers(db: Executor, f: TallyFilter): Promise<number> {
  return (await sharedCount(db, 'n', f))!;
}

/** Recounts the tally from the member rows, in the caller's transaction. */
export async function rebuildMemberTally(db: Executor): Promise<void> {
  await sql`select member_tally_refresh_all()`.execute(db);
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import pg from 'pg';
import { createMember } from '../helpers/factories.js';
import { adminUrl } from '../helpers/global-setup.js';
import { openTestDatabase, type TestDb } from '../helpers/test-app.js';

const url = process.env.DATABASE_URL || null;
const SLOTS = 16;
const CHANNEL = 4;

/**
 * The member tally's rows are shared by the backends whose process ids fall in one slot (migration
 * 0029). Two status changes in opposite directions on such backends take the same two rows; the
 * trigger takes them in one order, so neither waits for the other while holding what the other waits
 * for. PostgreSQL only: the embedded database has one connection.
 */
describe.skipIf(!url)('member tally under concurrent status changes', () => {
  let t: TestDb;
  /** this file's own database */
  let dbUrl: string;
  const clients: pg.Client[] = [];
  beforeAll(async () => {
    t = await openTestDatabase();
    const name = (await sql<{ name: string }>`select current_database() as name`.execute(t.db)).rows[0].name;
    dbUrl = adminUrl(url!, name);
  });
  afterAll(async () => {
    for (const c of clients) await c.end().catch(() => undefined);
    await t?.close();
  });

  async function connect(): Promise<{ client: pg.Client; pid: number }> {
    const client = new pg.Client({ connectionString: dbUrl });
    await client.connect();
    clients.push(client);
    const pid = Number((await client.query('select pg_backend_pid() as pid')).rows[0].pid);
    return { client, pid };
  }

  /** Two connections whose backends count in the same slot. */
  async function twoInOneSlot() {
    const bySlot = new Map<number, { client: pg.Client; pid: number }>();
    for (let i = 0; i < 60; i++) {
      const c = await connect();
      const other = bySlot.get(c.pid % SLOTS);
      if (other) return { a: other, b: c, slot: c.pid % SLOTS };
      bySlot.set(c.pid % SLOTS, c);
    }
    throw new Error('no two backends in one slot among 60');
  }

  async function waitsOnLock(pid: number) {
    for (let i = 0; i < 200; i++) {
      const r = await sql<{
        w: string | null;
      }>`select wait_event_type as w from pg_stat_activity where pid = ${pid}`.execute(t.db);
      if (r.rows[0]?.w === 'Lock') return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`backend ${pid} never waited on a lock`);
  }

  it('lets a 0 → 1 and a 1 → 0 change queued on the same rows both finish, and stay exact', async () => {
    const { a: up, b: down, slot } = await twoInOneSlot();
    const holder = await connect();
    const disabled = await createMember(t.db, { status: 0, channel: CHANNEL });
    const enabled = await createMember(t.db, { status: 1, channel: CHANNEL });
    await sql`insert into member_tally (status, channel, slot, living) values (0, ${CHANNEL}, ${slot}, 0) on conflict do nothing`.execute(
      t.db,
    );

    // A third transaction holds the (status 0) row, so both changes queue there in a known order:
    // first the one enabling a member, then the one disabling the other.
    await holder.client.query('begin');
    await holder.client.query('select 1 from member_tally where status = 0 and channel = $1 and slot = $2 for update', [
      CHANNEL,
      slot,
    ]);
    const answer = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (e: Error) => e.message,
      );
    await up.client.query('begin');
    const enabling = answer(up.client.query('update member set status = 1 where id = $1', [disabled]));
    await waitsOnLock(up.pid);
    await down.client.query('begin');
    const disabling = answer(down.client.query('update member set status = 0 where id = $1', [enabled]));
    await waitsOnLock(down.pid);
    await holder.client.query('commit');

    const first = await enabling;
    await up.client.query(first === 'ok' ? 'commit' : 'rollback');
    const second = await disabling;
    await down.client.query(second === 'ok' ? 'commit' : 'rollback');
    expect([first, second]).toEqual(['ok', 'ok']);

    const pairs = await sql<{ status: number; channel: number; n: string; tallied: string | null }>`
      select m.status, m.channel, count(*) as n,
        (select sum(living) from member_tally k where k.status = m.status and k.channel = m.channel) as tallied
      from member m where not m.is_deleted and m.channel = ${CHANNEL} group by 1, 2`.execute(t.db);
    for (const p of pairs.rows) expect(Number(p.tallied), `status ${p.status}`).toBe(Number(p.n));
  });
});

import { describe, expect, it } from 'vitest';
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  type CompiledQuery,
} from 'kysely';
import type { DB } from '../../src/db/types.js';
import { isReplicaReadable } from '../../src/platform/db/replica-routing.js';
import { parseLsn, ReplicaLag, type ProbeQuery } from '../../src/platform/db/replica-lag.js';
import { routeReads } from '../../src/platform/http/route-reads.js';
import { markFor } from '../../src/platform/db/prepared.js';
import type { RouteSpec } from '../../src/platform/http/routes.js';

// Compiles only: no connection is ever made.
const db = new Kysely<DB>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});
const raw = (text: string): CompiledQuery => sql.raw(text).compile(db);

describe('which statements a replica may answer (docs/adr/0101-reads-on-a-streaming-replica.md)', () => {
  it('selects, and raw reads however they start', () => {
    expect(isReplicaReadable(db.selectFrom('region').select('id').where('id', '=', 1).compile())).toBe(true);
    expect(isReplicaReadable(raw('select count(*) from card'))).toBe(true);
    expect(isReplicaReadable(raw('  /* a note */\n  with x as (select 1) select * from x'))).toBe(true);
    expect(isReplicaReadable(raw(`${markFor('page-window')}select id, updated_at, last_update from card`))).toBe(true);
  });

  it('never a write, a lock, a sequence or a setting', () => {
    expect(
      isReplicaReadable(
        db
          .insertInto('region')
          .values({ id: 1 } as never)
          .compile(),
      ),
    ).toBe(false);
    expect(
      isReplicaReadable(
        db
          .updateTable('region')
          .set({ id: 2 } as never)
          .compile(),
      ),
    ).toBe(false);
    expect(isReplicaReadable(db.deleteFrom('region').compile())).toBe(false);
    expect(isReplicaReadable(db.selectFrom('region').select('id').forUpdate().compile())).toBe(false);
    expect(isReplicaReadable(raw('update card set status = 1'))).toBe(false);
    expect(isReplicaReadable(raw('with d as (delete from card returning id) select * from d'))).toBe(false);
    expect(isReplicaReadable(raw("select nextval('card_id_seq')"))).toBe(false);
    expect(isReplicaReadable(raw('select pg_advisory_xact_lock(1)'))).toBe(false);
    expect(isReplicaReadable(raw('select * from card for share'))).toBe(false);
    expect(isReplicaReadable(raw("select set_config('statement_timeout', '1', false)"))).toBe(false);
    expect(isReplicaReadable(raw('begin'))).toBe(false);
  });
});

describe('which routes read on the replica', () => {
  const route = (path: string, more: Partial<RouteSpec> = {}) =>
    ({ path, tags: ['x'], method: 'POST', channels: ['manage'], auth: 'public', ...more }) as RouteSpec;

  it('pages replica, exports and statistics reports, the rest primary; cached answers and declarations win', () => {
    expect(routeReads(route('/system/role/queryRolePage'))).toBe('replica');
    expect(routeReads(route('/card/exportCardBatch'))).toBe('report');
    expect(routeReads(route('/bank/bankStat'))).toBe('report');
    expect(routeReads(route('/statistics/statCardIssue'))).toBe('report');
    expect(routeReads(route('/profitAccounting/cardModel', { tags: ['statistics'] }))).toBe('report');
    expect(routeReads(route('/system/role/addRole'))).toBe('primary');
    expect(routeReads(route('/card/queryCardModelList'))).toBe('primary');
    expect(routeReads(route('/system/user/exporter'))).toBe('primary');
    expect(routeReads(route('/region/queryRegionPage', { cached: true }))).toBe('primary');
    expect(routeReads(route('/system/role/queryRolePage', { reads: 'primary' }))).toBe('primary');
  });
});

describe('the replica lag check', () => {
  const lsn = (n: number) => `0/${n.toString(16).toUpperCase()}`;

  function probes(state: { primary: number; replayed: number | null; down?: boolean }) {
    const primary: ProbeQuery = async () => [{ lsn: lsn(state.primary) }];
    const replica: ProbeQuery = async () => {
      if (state.down) throw new Error('connect ECONNREFUSED');
      return [{ standby: true, lsn: state.replayed === null ? null : lsn(state.replayed) }];
    };
    return { primary, replica };
  }

  it('reads WAL positions', () => {
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
    expect(parseLsn('0/10') > parseLsn('0/F')).toBe(true);
  });

  it('an idle primary shows no lag however long ago the last write was; behind, the lag is the age of the newest position replayed', async () => {
    const s = { primary: 100, replayed: 100 };
    const { primary, replica } = probes(s);
    const lag = new ReplicaLag(primary, replica, { maxLagMs: 50, everyMs: 10 });
    await lag.check();
    expect(lag.state).toBe('usable');
    await new Promise((r) => setTimeout(r, 80));
    await lag.check();
    expect(lag.state).toBe('usable');
    expect(lag.lagMs).toBeLessThan(50);

    s.primary = 200; // a write the replica has not replayed
    await lag.check();
    expect(lag.state).toBe('usable'); // it had everything the primary had a moment ago
    await new Promise((r) => setTimeout(r, 80));
    await lag.check();
    expect(lag.state).toBe('lag');
    expect(lag.lagMs).toBeGreaterThanOrEqual(80);

    s.replayed = 200;
    await lag.check();
    expect(lag.state).toBe('usable');
  });

  it('behind every position it has seen: skipped until it replays one; unreachable: skipped until it answers', async () => {
    const s = { primary: 500, replayed: 100, down: false };
    const { primary, replica } = probes(s);
    const lag = new ReplicaLag(primary, replica, { maxLagMs: 1_000, everyMs: 10 });
    const changes: string[] = [];
    lag.listen((state) => changes.push(state));
    await lag.check();
    expect(lag.state).toBe('lag');
    s.replayed = 500;
    await lag.check();
    expect(lag.state).toBe('usable');
    s.down = true;
    await lag.check();
    expect(lag.state).toBe('unreachable');
    expect(lag.lagMs).toBeNull();
    s.down = false;
    await lag.check();
    expect(lag.state).toBe('usable');
    expect(changes).toEqual(['lag', 'usable', 'unreachable', 'usable']);
  });
});

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldCheckRollup, settledCheckId } from '../../src/modules/statistics/check-rollup.js';
import { foldNextChecks } from '../../src/modules/statistics/check-rollup.repository.js';
import { splitUtcDays } from '../../src/modules/statistics/utc-days.js';
import { inTransaction } from '../../src/platform/db/transaction.js';
import { ageThresholds } from '../../src/modules/statistics/portrait.repository.js';
import { formatDateTime } from '../../src/platform/time.js';
import {
  createCard,
  createCardBinding,
  createCardModel,
  createCardModelRule,
  createMember,
  createShop,
} from '../helpers/factories.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, openTestDatabase, type TestApp, type TestDb } from '../helpers/test-app.js';
import { checkIn, createSpot, heldCard, HOUR, type HeldCard, type Spot } from '../checker/checkin-fixtures.js';
import { buildStatWorld, residentId, type StatWorld } from './stat-fixtures.js';

/**
 * What the statistics precompute. The check roll-up (check-rollup.ts): profitAccounting answers the
 * same before and after the job folds, after new checks arrive beyond the mark, and after a revocation
 * on either side of it, always equal to a reference computed straight from card_check; two instances
 * folding at once fold each check once. The holder attributes stored with a binding and the holder
 * table kept by triggers (statCardArea).
 */
const PROFIT = '/manage-api/profitAccounting/cardModel';
const DELETE = '/app-api/checker/deleteCheckerConsumeRecord';

let db: TestDb;
let one: TestApp;
let two: TestApp;
let spot: Spot;
let spot2: Spot;
let platform: StaffSession;
let w: StatWorld;
const cards: HeldCard[] = [];

beforeAll(async () => {
  db = await openTestDatabase();
  one = await createTestApp({}, { db });
  two = await createTestApp({}, { db, store: one.store });
  w = await buildStatWorld(one.db);
  spot = await createSpot(one, { dailyLimit: 9 });
  // A second park admitting the first spot's card model: its cards have entries at two resources.
  spot2 = await createSpot(one, { dailyLimit: 9 });
  await createCardModelRule(one.db, { card_model_id: spot.modelId, resource_id: spot2.spuId, daily_check_limit: 9 });
  platform = await staffSession(one, { kind: 'platform', permissions: ['statistics:read'] });
  for (let i = 0; i < 8; i++)
    cards.push(await heldCard(one.db, spot.modelId, { active_time: new Date(Date.now() - 30 * 24 * HOUR) }));
});
afterAll(async () => {
  await two?.close();
  await one?.close();
  await db?.close();
});

/** A check-in through HTTP on either instance; its record id. */
async function scan(at: Spot, card: HeldCard, app: TestApp = one): Promise<number> {
  const res = await checkIn(app, at.checker.token, { skuId: at.skuId, cardNumber: card.cardNumber });
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data.id;
}

async function profit(body: Record<string, unknown>, app: TestApp = one) {
  const res = await app.post(PROFIT, body, platform.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}

/** The use figures of the platform's cohort, counted straight from card_check (what the roll-up must give). */
async function reference(modelId: number | null, range?: [string, string]) {
  const { rows } = await sql<{ card_id: number; resource_id: number; n: string }>`
    select cc.card_id, cc.resource_id, sum(cc.consume_num) as n
    from card_check cc join card c on c.id = cc.card_id and c.card_model_id = cc.card_model_id
    where not cc.is_deleted and not c.is_deleted and c.active_time is not null
      ${modelId == null ? sql`` : sql`and c.card_model_id = ${modelId}`}
      ${range ? sql`and c.active_time between ${range[0] + ' 00:00:00'}::timestamp and ${range[1] + ' 23:59:59.999'}::timestamp` : sql``}
    group by 1, 2`.execute(one.db);
  const perCard = new Map<number, number>();
  const perResource = new Map<number, number>();
  for (const r of rows) {
    perCard.set(Number(r.card_id), (perCard.get(Number(r.card_id)) ?? 0) + Number(r.n));
    perResource.set(Number(r.resource_id), (perResource.get(Number(r.resource_id)) ?? 0) + Number(r.n));
  }
  const buckets = [0, 0, 0, 0, 0, 0, 0, 0];
  for (const n of perCard.values()) buckets[Math.min(n, 7)]++;
  return {
    totalCheckNum: [...perCard.values()].reduce((a, b) => a + b, 0),
    buckets: buckets.slice(1),
    perResource,
  };
}

const figures = (d: any) => ({
  totalCheckNum: d.totalCheckNum,
  buckets: [d.oneTimes, d.twoTimes, d.threeTimes, d.fourTimes, d.fiveTimes, d.sixTimes, d.sixPlusTimes],
  perResource: new Map(
    (d.resourceList as Array<{ resourceId: number; checkNum: number }>)
      .filter((r) => r.checkNum > 0)
      .map((r) => [r.resourceId, r.checkNum]),
  ),
});

const YEAR = ['2026-01-01', '2026-12-31'] as [string, string];
/** Every request compared: each model, every model, and a range. */
const requests = () => [
  { body: { cardModelId: spot.modelId }, model: spot.modelId },
  { body: { cardModelId: w.m1 }, model: w.m1 },
  { body: { cardModelId: w.m2 }, model: w.m2 },
  { body: {}, model: null },
  {
    body: { cardModelId: w.m1, activeTimeRange: ['2026-03-01', '2026-03-31'] },
    model: w.m1,
    range: ['2026-03-01', '2026-03-31'] as [string, string],
  },
  { body: { activeTimeRange: YEAR }, model: null, range: YEAR },
];

/** Every answer, after checking each against the reference. */
async function answersMatchingReference() {
  const out = [];
  for (const r of requests()) {
    const d = await profit(r.body);
    const ref = await reference(r.model, r.range);
    const got = figures(d);
    // The resource list names the resources of the model's rules; compare those.
    const listed = new Set((d.resourceList as Array<{ resourceId: number }>).map((x) => x.resourceId));
    for (const k of [...ref.perResource.keys()]) if (!listed.has(k)) ref.perResource.delete(k);
    expect(got, JSON.stringify(r.body)).toEqual(ref);
    out.push(d);
  }
  return out;
}

const mark = async () =>
  Number(
    (await one.db.selectFrom('stat_check_fold').select('folded_to').where('id', '=', 1).executeTakeFirstOrThrow())
      .folded_to,
  );

/** The roll-up equals an aggregate of the living checks at or below the mark, key by key. */
async function expectRollupExact() {
  const m = await mark();
  const rolled = await sql<{ k: string; entries: string; checks: string }>`
    select card_id || '/' || card_model_id || '/' || resource_id as k, entries, checks from stat_check_rollup where checks > 0 order by 1`.execute(
    one.db,
  );
  const raw = await sql<{ k: string; entries: string; checks: string }>`
    select card_id || '/' || card_model_id || '/' || resource_id as k, sum(consume_num) as entries, count(*) as checks
    from card_check where not is_deleted and id <= ${m} group by card_id, card_model_id, resource_id order by 1`.execute(
    one.db,
  );
  const norm = (rows: Array<{ k: string; entries: string; checks: string }>) =>
    rows.map((r) => [r.k, Number(r.entries), Number(r.checks)]);
  expect(norm(rolled.rows)).toEqual(norm(raw.rows));
  const zero = await sql<{
    n: string;
  }>`select count(*) as n from stat_check_rollup where checks = 0 and entries <> 0`.execute(one.db);
  expect(Number(zero.rows[0].n)).toBe(0);
  // Each card's sum over its resources, and every row carrying its card's attributes as they are now.
  const perCard = await sql<{ n: string }>`
    select count(*) as n from (
      (select card_id, card_model_id, entries from stat_card_use
       except select card_id, card_model_id, sum(entries) from stat_check_rollup group by 1, 2)
      union all
      (select card_id, card_model_id, sum(entries) from stat_check_rollup group by 1, 2
       except select card_id, card_model_id, entries from stat_card_use)) d`.execute(one.db);
  expect(Number(perCard.rows[0].n)).toBe(0);
  // The day entries: the counted roll-up rows grouped by model × resource × seller × UTC activation day.
  const days = await sql<{ n: string }>`
    select count(*) as n from (
      (select card_model_id, resource_id, merchant_id, shop_id, active_day, entries from stat_resource_day where entries <> 0
       except select card_model_id, resource_id, coalesce(merchant_id, 0), coalesce(shop_id, 0), (active_time at time zone 'UTC')::date, sum(entries)
       from stat_check_rollup where counted and active_time is not null group by 1, 2, 3, 4, 5 having sum(entries) <> 0)
      union all
      (select card_model_id, resource_id, coalesce(merchant_id, 0), coalesce(shop_id, 0), (active_time at time zone 'UTC')::date, sum(entries)
       from stat_check_rollup where counted and active_time is not null group by 1, 2, 3, 4, 5 having sum(entries) <> 0
       except select card_model_id, resource_id, merchant_id, shop_id, active_day, entries from stat_resource_day where entries <> 0)) d`.execute(
    one.db,
  );
  expect(Number(days.rows[0].n)).toBe(0);
  // The check days: the living checks at or below the mark grouped by UTC check day × model × SKU.
  const checkDays = await sql<{ n: string }>`
    select count(*) as n from (
      (select check_day, card_model_id, sku_id, entries from stat_check_day where entries <> 0
       except select (check_time at time zone 'UTC')::date, card_model_id, sku_id, sum(consume_num)
       from card_check where not is_deleted and id <= ${m} group by 1, 2, 3)
      union all
      (select (check_time at time zone 'UTC')::date, card_model_id, sku_id, sum(consume_num)
       from card_check where not is_deleted and id <= ${m} group by 1, 2, 3
       except select check_day, card_model_id, sku_id, entries from stat_check_day where entries <> 0)) d`.execute(
    one.db,
  );
  expect(Number(checkDays.rows[0].n)).toBe(0);
  for (const table of ['stat_check_rollup', 'stat_card_use']) {
    const stale = await sql<{ n: string }>`
      select count(*) as n from ${sql.table(table)} u join card c on c.id = u.card_id
      where u.active_time is distinct from c.active_time or u.merchant_id is distinct from c.merchant_id
        or u.shop_id is distinct from c.shop_id or u.counted <> (not c.is_deleted and c.card_model_id = u.card_model_id)`.execute(
      one.db,
    );
    expect(Number(stale.rows[0].n), table).toBe(0);
  }
}

describe('profitAccounting over the check roll-up', () => {
  const firstChecks: number[] = [];

  it('answers the same before and after the job folds (two instances folding at once fold each check once)', async () => {
    // Card i: i checks at the first park, and one at the second for every other card.
    for (let i = 0; i < cards.length; i++) {
      for (let k = 0; k < i; k++) firstChecks.push(await scan(spot, cards[i]));
      if (i % 2) firstChecks.push(await scan(spot2, cards[i]));
    }
    expect(await mark()).toBe(0); // nothing folded yet: every check is read live
    const before = await answersMatchingReference();
    expect(before[0].totalCheckNum).toBe(28 + 4);

    const [a, b] = await Promise.all([foldCheckRollup(one.db), foldCheckRollup(two.db)]);
    expect(a + b).toBeGreaterThan(0);
    const max = await sql<{ id: string }>`select max(id) as id from card_check`.execute(one.db);
    expect(await mark()).toBe(Number(max.rows[0].id));
    await expectRollupExact();
    // Every check, the stat world's included, is now in the roll-up: each counted once.
    const sums = await sql<{ rolled: string; raw: string }>`
      select (select sum(entries) from stat_check_rollup) as rolled, (select sum(consume_num) from card_check where not is_deleted) as raw`.execute(
      one.db,
    );
    expect(Number(sums.rows[0].rolled)).toBe(Number(sums.rows[0].raw));

    expect(await answersMatchingReference()).toEqual(before);
    // A second round with nothing new changes nothing.
    expect(await foldCheckRollup(two.db)).toBe(0);
    expect(await answersMatchingReference()).toEqual(before);
  });

  it('counts new checks beyond the mark live, and the same once folded', async () => {
    const before = await profit({ cardModelId: spot.modelId });
    const m = await mark();
    await scan(spot, cards[0], two);
    await scan(spot2, cards[0]);
    await scan(spot, cards[7]);
    expect(await mark()).toBe(m);
    const live = await answersMatchingReference();
    expect(live[0].totalCheckNum).toBe(before.totalCheckNum + 3);
    expect(live[0].oneTimes).toBe(before.oneTimes); // card 1 (one check) stays; card 0 goes from none to two
    expect(live[0].twoTimes).toBe(before.twoTimes + 1);
    await foldCheckRollup(one.db);
    expect(await mark()).toBeGreaterThan(m);
    await expectRollupExact();
    expect(await answersMatchingReference()).toEqual(live);
  });

  it('a revoked check at or below the mark leaves the roll-up in the revoking transaction', async () => {
    const id = firstChecks[firstChecks.length - 1];
    expect(id).toBeLessThanOrEqual(await mark());
    const before = await profit({ cardModelId: spot.modelId });
    const res = await one.post(DELETE, { id }, (await checkerOf(id)).token);
    expect(res.body.errcode, res.body.errmsg).toBe(0);
    await expectRollupExact();
    const after = (await answersMatchingReference())[0];
    expect(after.totalCheckNum).toBe(before.totalCheckNum - 1);
    // Folding again does not bring it back.
    await foldCheckRollup(one.db);
    await expectRollupExact();
    expect((await answersMatchingReference())[0]).toEqual(after);

    // A card whose only check is folded and then revoked is no used card.
    const lone = await heldCard(one.db, spot.modelId, { active_time: new Date(Date.now() - 30 * 24 * HOUR) });
    const loneCheck = await scan(spot, lone);
    await foldCheckRollup(two.db);
    expect((await answersMatchingReference())[0].oneTimes).toBe(after.oneTimes + 1);
    expect((await one.post(DELETE, { id: loneCheck }, spot.checker.token)).body.errcode).toBe(0);
    const gone = (await answersMatchingReference())[0];
    expect(gone.oneTimes).toBe(after.oneTimes);
    expect(gone.usedPercent).toBeLessThan(after.usedPercent);
  });

  it('a revoked check beyond the mark is never folded', async () => {
    const id = await scan(spot, cards[2]);
    expect(id).toBeGreaterThan(await mark());
    const withIt = (await answersMatchingReference())[0];
    const res = await one.post(DELETE, { id }, spot.checker.token);
    expect(res.body.errcode, res.body.errmsg).toBe(0);
    const without = (await answersMatchingReference())[0];
    expect(without.totalCheckNum).toBe(withIt.totalCheckNum - 1);
    await foldCheckRollup(two.db);
    expect(await mark()).toBeGreaterThanOrEqual(id);
    await expectRollupExact();
    expect((await answersMatchingReference())[0]).toEqual(without);
  });

  it('folds in chunks, and check-ins, revocations and folds on two instances at once leave it exact', async () => {
    // Chunks: one check at a time, the mark moving check by check.
    for (let i = 0; i < 3; i++) await scan(spot2, cards[i]);
    const upTo = (await settledCheckId(one.db))!;
    let rounds = 0;
    for (;;) {
      const r = await inTransaction(one.db, (trx) => foldNextChecks(trx, upTo, 1));
      rounds++;
      await expectRollupExact();
      if (r.done) break;
    }
    expect(rounds).toBe(3);

    const revocable = await scan(spot2, cards[4]);
    await foldCheckRollup(one.db);
    const work: Array<Promise<unknown>> = [];
    for (let i = 0; i < 6; i++) {
      work.push(scan(spot2, cards[(i % 3) + 5], i % 2 ? two : one));
      work.push(foldCheckRollup(i % 2 ? one.db : two.db));
    }
    work.push(one.post(DELETE, { id: revocable }, spot2.checker.token).then((r) => expect(r.body.errcode).toBe(0)));
    await Promise.all(work);
    await expectRollupExact();
    await answersMatchingReference();
    await Promise.all([foldCheckRollup(one.db), foldCheckRollup(two.db)]);
    await expectRollupExact();
    const left = await sql<{ n: string }>`select count(*) as n from card_check where id > ${await mark()}`.execute(
      one.db,
    );
    expect(Number(left.rows[0].n)).toBe(0);
    await answersMatchingReference();
  });
});

describe('profitAccounting when a card changes after its checks were folded', () => {
  it('splits an activation range into whole UTC days and the rest', () => {
    const days = (start: string, end: string) => {
      const d = splitUtcDays({ start: new Date(start), end: new Date(end) });
      return sql`select ${d.whole('d.active_day')} as w, ${d.partial('u.active_time')} as p`
        .compile(one.db)
        .parameters.map((p) => (p instanceof Date ? p.toISOString() : p));
    };
    // A service day (UTC+8) is two partial UTC days: nothing whole.
    expect(days('2026-03-01T00:00:00+08:00', '2026-03-01T23:59:59.999+08:00')).toEqual([
      '2026-02-28T16:00:00.000Z',
      '2026-03-01T15:59:59.999Z',
    ]);
    // A month: whole from 1 March (UTC) to 31 March exclusive, the edges apart.
    expect(days('2026-03-01T00:00:00+08:00', '2026-03-31T23:59:59.999+08:00')).toEqual([
      '2026-03-01',
      '2026-03-31',
      '2026-02-28T16:00:00.000Z',
      '2026-03-01T00:00:00.000Z',
      '2026-03-31T00:00:00.000Z',
      '2026-03-31T15:59:59.999Z',
    ]);
    // UTC days exactly: every day whole, a range ending on a midnight keeps that instant apart.
    expect(days('2026-03-01T00:00:00Z', '2026-03-02T23:59:59.999Z').slice(0, 2)).toEqual(['2026-03-01', '2026-03-03']);
    expect(days('2026-03-01T00:00:00Z', '2026-03-03T00:00:00Z').slice(0, 2)).toEqual(['2026-03-01', '2026-03-03']);
  });

  it('a card deleted, restored, moved to another model, sold by another shop or activated at another time is counted as it is now', async () => {
    await foldCheckRollup(one.db);
    const card = cards[6];
    const cardId = Number(
      (
        await one.db
          .selectFrom('card')
          .select('id')
          .where('card_number', '=', card.cardNumber)
          .executeTakeFirstOrThrow()
      ).id,
    );
    const set = (v: Record<string, unknown>) => one.db.updateTable('card').set(v).where('id', '=', cardId).execute();
    const before = await answersMatchingReference();

    await set({ is_deleted: true });
    await expectRollupExact();
    const deleted = await answersMatchingReference();
    expect(deleted[0].totalCheckNum).toBeLessThan(before[0].totalCheckNum);
    await set({ is_deleted: false });
    await expectRollupExact();
    expect(await answersMatchingReference()).toEqual(before);

    // Another model: its folded checks were of the old one, so they count for neither (as the join did).
    await set({ card_model_id: w.m1 });
    await expectRollupExact();
    await answersMatchingReference();
    await set({ card_model_id: spot.modelId, active_time: new Date('2026-03-15T10:00:00+08:00') });
    await expectRollupExact();
    await answersMatchingReference();
    const shop = await createShop(one.db);
    await set({ shop_id: shop });
    await expectRollupExact();
    const shopUser = await staffSession(one, { kind: 'shop', shopId: shop, permissions: ['statistics:read'] });
    const seen = await one.post(PROFIT, {}, shopUser.token);
    expect(seen.body.errcode, seen.body.errmsg).toBe(0);
    expect(seen.body.data.totalActiveCardNum).toBe(1);
    expect(seen.body.data.totalCheckNum).toBeGreaterThan(0);

    // Activated at the very edges of a range, and within its partial UTC days (the service's days are
    // not UTC days): the whole days come from the day entries, the rest from the roll-up's rows.
    for (const at of [
      '2026-03-01T00:00:00+08:00',
      '2026-03-01T07:59:59+08:00',
      '2026-03-01T08:00:00+08:00',
      '2026-03-31T23:59:59.999+08:00',
      '2026-04-01T00:00:00+08:00',
      '2026-02-28T23:59:59.999+08:00',
    ]) {
      await set({ active_time: new Date(at) });
      await expectRollupExact();
      await answersMatchingReference();
    }

    // A change racing a fold of the card's new checks: whichever commits first, the rows end current.
    await scan(spot, card);
    await Promise.all([
      foldCheckRollup(two.db),
      set({ shop_id: null, active_time: new Date(Date.now() - 30 * 24 * HOUR) }),
    ]);
    await foldCheckRollup(one.db);
    await expectRollupExact();
    await answersMatchingReference();
  });
});

describe('statCardArea from the holder table', () => {
  it('thresholds: k or older exactly when the YYYYMMDD birth is at most today − k years', () => {
    expect(ageThresholds(20240229)).toEqual([19630230, 19730230, 19830230, 19930230, 20060230, 20240230]);
    expect(ageThresholds(20261231)).toEqual([19651232, 19751232, 19851232, 19951232, 20081232, 20261232]);
  });

  /**
   * stat_holder equals the holders computed straight from the bindings, cards and members (the query
   * the portrait ran before the table existed), whatever was written and however.
   */
  async function expectHoldersExact(): Promise<number> {
    const stored = await sql<Record<string, unknown>>`
      select binding_id, card_model_id, merchant_id, shop_id, active_time, document, sex, birth, district from stat_holder order by binding_id`.execute(
      one.db,
    );
    const reference = await sql<Record<string, unknown>>`
      select b.id as binding_id, c.card_model_id, c.merchant_id, c.shop_id, c.active_time,
        md5(coalesce(b.id_type::text, '') || ':' || coalesce('=' || upper(b.id_no), ''))::uuid as document,
        case when m.sex in (1, 2) then m.sex else coalesce(b.id_sex, 0) end as sex,
        coalesce(to_char(m.birthday, 'YYYYMMDD')::int, b.id_birth) as birth,
        coalesce(m.area_id, b.id_district) as district
      from card_binding b join card c on c.id = b.card_id
      left join member m on m.id = b.member_id and not m.is_deleted
      where not b.is_deleted and not c.is_deleted
      order by b.id`.execute(one.db);
    const value = (v: unknown) =>
      v == null ? null : v instanceof Date ? v.getTime() : typeof v === 'string' && v.includes('-') ? v : Number(v);
    const norm = (rows: Array<Record<string, unknown>>) =>
      rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, value(v)])));
    expect(norm(stored.rows)).toEqual(norm(reference.rows));
    return stored.rows.length;
  }

  it('is kept exact by every write of a binding, a card or a member, and a failed write leaves it as it was', async () => {
    const model = await createCardModel(one.db);
    const shop = await createShop(one.db);
    const member = await createMember(one.db, { sex: 2, birthday: '1990-05-06', area_id: 330106 });
    const cardA = await createCard(one.db, { card_model_id: model });
    const cardB = await createCard(one.db, { card_model_id: model });
    const a = await createCardBinding(one.db, {
      card_id: cardA,
      member_id: member,
      id_type: 1,
      id_no: residentId('310104', '19800101', true),
    });
    const b = await createCardBinding(one.db, {
      card_id: cardB,
      id_type: 1,
      id_no: residentId('310104', '20000229', false),
    });
    const n = await expectHoldersExact();
    const row = (id: number) =>
      one.db.selectFrom('stat_holder').selectAll().where('binding_id', '=', id).executeTakeFirst();
    expect(await row(a)).toMatchObject({ sex: 2, birth: 19900506, district: 330106 });
    expect(await row(b)).toMatchObject({ sex: 2, birth: 20000229, district: 310104 });

    // The member edits what it says; says nothing; is deleted (the ID number speaks again).
    await one.db
      .updateTable('member')
      .set({ sex: 1, birthday: '1991-07-08', area_id: 310104 })
      .where('id', '=', member)
      .execute();
    expect(await row(a)).toMatchObject({ sex: 1, birth: 19910708, district: 310104 });
    await one.db
      .updateTable('member')
      .set({ sex: null, birthday: null, area_id: null })
      .where('id', '=', member)
      .execute();
    expect(await row(a)).toMatchObject({ sex: 1, birth: 19800101, district: 310104 });
    await one.db.updateTable('member').set({ sex: 2, is_deleted: true }).where('id', '=', member).execute();
    expect(await row(a)).toMatchObject({ sex: 1, birth: 19800101 });
    await expectHoldersExact();

    // The binding changes holder and document; is deleted; a new one is made.
    const other = await createMember(one.db, { sex: 2, birthday: '1970-01-02', area_id: null });
    await one.db
      .updateTable('card_binding')
      .set({ member_id: other, id_type: 3, id_no: 'E7654321' })
      .where('id', '=', b)
      .execute();
    expect(await row(b)).toMatchObject({ sex: 2, birth: 19700102, district: null });
    await one.db.updateTable('card_binding').set({ is_deleted: true }).where('id', '=', b).execute();
    expect(await row(b)).toBeUndefined();
    const b2 = await createCardBinding(one.db, {
      card_id: cardB,
      id_type: 1,
      id_no: residentId('330106', '19651127', false),
    });
    expect(await row(b2)).toMatchObject({ sex: 2, birth: 19651127, district: 330106 });

    // The card is sold by a shop, changes model, is deleted and restored.
    const model2 = await createCardModel(one.db);
    await one.db.updateTable('card').set({ shop_id: shop, card_model_id: model2 }).where('id', '=', cardB).execute();
    expect(await row(b2)).toMatchObject({ shop_id: shop, card_model_id: model2 });
    await one.db.updateTable('card').set({ is_deleted: true }).where('id', '=', cardB).execute();
    expect(await row(b2)).toBeUndefined();
    await one.db.updateTable('card').set({ is_deleted: false }).where('id', '=', cardB).execute();
    expect(await row(b2)).toMatchObject({ shop_id: shop });
    expect(await expectHoldersExact()).toBe(n);

    // A write that fails leaves the holder row as it was (the trigger's work is in the same transaction).
    await expect(
      inTransaction(one.db, async (trx) => {
        await trx.updateTable('card_binding').set({ is_deleted: true }).where('id', '=', b2).execute();
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await row(b2)).toMatchObject({ shop_id: shop });

    // A row removed for good goes too.
    await one.db.deleteFrom('card_binding').where('id', '=', b2).execute();
    expect(await row(b2)).toBeUndefined();
    await expectHoldersExact();
  });

  it('a holder born on this day 18 years ago is 18–30, a day later under 18, from the member record or the ID number', async () => {
    const today = formatDateTime(new Date())!.slice(0, 10);
    const [y, m, d] = today.split('-').map(Number);
    const day = (offset: number) => {
      const t = new Date(Date.UTC(y - 18, m - 1, d + offset));
      return t.toISOString().slice(0, 10);
    };
    // On 29 February the day 18 years before is not a real date: the 18th birthday is then 1 March.
    const born18 = m === 2 && d === 29 ? `${y - 18}-02-28` : day(0);
    const born17 = m === 2 && d === 29 ? `${y - 18}-03-01` : day(1);
    const digits = (iso: string) => iso.replace(/-/g, '');
    const model = await createCardModel(one.db);
    const bind = async (o: {
      member?: { sex: number | null; birthday: string | null; area_id: number | null };
      idType: number;
      idNo: string;
    }) => {
      const cardId = await createCard(one.db, { card_model_id: model });
      const memberId = o.member ? await createMember(one.db, o.member) : null;
      await createCardBinding(one.db, { card_id: cardId, member_id: memberId, id_type: o.idType, id_no: o.idNo });
      return cardId;
    };
    await bind({ member: { sex: 1, birthday: born18, area_id: 330106 }, idType: 3, idNo: 'E7654321' });
    await bind({
      member: { sex: null, birthday: born17, area_id: null },
      idType: 1,
      idNo: residentId('310104', '19500101', false),
    });
    const byId = await bind({ idType: 1, idNo: residentId('330106', digits(born18), true) });
    await bind({ idType: 1, idNo: residentId('310104', digits(born17), false) });
    const passport = await bind({ idType: 3, idNo: 'E1234567' });

    const stored = await one.db
      .selectFrom('card_binding')
      .select(['card_id', 'id_sex', 'id_birth', 'id_district'])
      .where('card_id', 'in', [byId, passport])
      .orderBy('card_id')
      .execute();
    expect(stored).toEqual([
      { card_id: byId, id_sex: 1, id_birth: Number(digits(born18)), id_district: 330106 },
      { card_id: passport, id_sex: null, id_birth: null, id_district: null },
    ]);

    const res = await one.post('/manage-api/statistics/statCardArea', { cardModelId: model }, platform.token);
    expect(res.body.errcode, res.body.errmsg).toBe(0);
    const p = res.body.data;
    const counts = (items: Array<{ code: string; count: number }>) =>
      Object.fromEntries(items.filter((i) => i.count > 0).map((i) => [i.code, i.count]));
    expect(counts(p.ageDistribution)).toEqual({ lt18: 2, '18-30': 2, unknown: 1 });
    expect(counts(p.genderDistribution)).toEqual({ 1: 2, 2: 2, 0: 1 });
    expect(counts(p.cityDistributions)).toEqual({ 330100: 2, 310100: 2, 0: 1 });
  });
});

/** The verifier who made a check (the first park's or the second's). */
async function checkerOf(id: number) {
  const r = await one.db.selectFrom('card_check').select('checker_id').where('id', '=', id).executeTakeFirstOrThrow();
  return r.checker_id === spot.checker.id ? spot.checker : spot2.checker;
}

describe('statHomeCardCheckNum over the check days', () => {
  const RANGES: Array<[string, string]> = [
    ['2026-03-02', '2026-03-02'], // one service day: two partial UTC days, nothing whole
    ['2026-03-01', '2026-03-31'],
    ['2026-03-15', '2026-03-15'],
    YEAR,
  ];
  const today = () => formatDateTime(new Date())!.slice(0, 10);
  let sessions: Array<{ who: StaffSession; where: ReturnType<typeof sql> }>;

  beforeAll(async () => {
    const merchantA = await staffSession(one, {
      kind: 'merchant',
      merchantId: w.merchantA,
      permissions: ['statistics:read'],
    });
    const merchantB = await staffSession(one, {
      kind: 'merchant',
      merchantId: w.merchantB,
      permissions: ['statistics:read'],
    });
    const shopA1 = await staffSession(one, { kind: 'shop', shopId: w.shopA1, permissions: ['statistics:read'] });
    sessions = [
      { who: platform, where: sql`true` },
      { who: merchantA, where: sql`(s.merchant_id = ${w.merchantA} or cm.merchant_id = ${w.merchantA})` },
      { who: merchantB, where: sql`(s.merchant_id = ${w.merchantB} or cm.merchant_id = ${w.merchantB})` },
      { who: shopA1, where: sql`s.shop_id = ${w.shopA1}` },
    ];
    // Checks on the edges of service and UTC days: the first and last instant of March (UTC+8), a UTC midnight.
    const edge = (time: string, sku: number, spu: number, consume: number) =>
      one.db
        .insertInto('card_check')
        .values({
          card_id: w.cards.c1,
          card_model_id: w.m1,
          sku_id: sku,
          resource_id: spu,
          check_time: new Date(time),
          check_date: '2026-03-01',
          consume_num: consume,
        })
        .execute();
    await edge('2026-03-01T00:00:00+08:00', w.skuA1, w.spuA1, 3);
    await edge('2026-03-31T23:59:59.999+08:00', w.skuB, w.spuB, 5);
    await edge('2026-04-01T00:00:00+08:00', w.skuB, w.spuB, 7);
    await edge('2026-03-15T00:00:00Z', w.skuA1, w.spuA1, 11);
    await edge('2026-03-14T23:59:59.999Z', w.skuB, w.spuB, 13);
  });

  /** Entries per model counted straight from card_check, in the session's scope. */
  async function reference(range: [string, string], where: ReturnType<typeof sql>) {
    const { rows } = await sql<{ id: number; n: string }>`
      select cc.card_model_id as id, sum(cc.consume_num) as n
      from card_check cc join sku s on s.id = cc.sku_id join card_model cm on cm.id = cc.card_model_id
      where not cc.is_deleted and cc.check_time between ${range[0] + ' 00:00:00'}::timestamp and ${range[1] + ' 23:59:59.999'}::timestamp and ${where}
      group by 1 order by 1`.execute(one.db);
    return rows.map((r) => [Number(r.id), Number(r.n)]);
  }

  async function expectEveryAnswerExact(extra: Array<[string, string]> = []) {
    for (const range of [...RANGES, ...extra]) {
      for (const { who, where } of sessions) {
        const res = await one.post('/manage-api/statistics/statHomeCardCheckNum', { datePair: range }, who.token);
        expect(res.body.errcode, res.body.errmsg).toBe(0);
        const got = (res.body.data as Array<{ cardModelId: number; checkNum: number }>).map((r) => [
          r.cardModelId,
          r.checkNum,
        ]);
        expect(got, `${range} ${who.token.slice(0, 6)}`).toEqual(await reference(range, where));
      }
    }
  }

  it('equals the checks counted straight, whatever is folded, edges of days included', async () => {
    await expectEveryAnswerExact();
    await foldCheckRollup(one.db);
    await expectRollupExact();
    await expectEveryAnswerExact();
    const march = await one.post(
      '/manage-api/statistics/statHomeCardCheckNum',
      { datePair: ['2026-03-01', '2026-03-31'] },
      platform.token,
    );
    // 13 entries of M1 and 2 of M2 in the world, plus 3 + 5 + 11 + 13 on the edges (7 falls in April).
    expect(march.body.data).toEqual([
      { cardModelId: w.m1, cardModelName: w.m1Name, checkNum: 13 + 3 + 5 + 11 + 13 },
      { cardModelId: w.m2, cardModelName: w.m2Name, checkNum: 2 },
    ]);
  });

  it('counts a check beyond the mark live, and once folded, and not once revoked', async () => {
    const recent: Array<[string, string]> = [
      [today(), today()],
      ['2026-11-01', '2026-12-31'],
    ];
    const id = await scan(spot, cards[2]);
    await expectEveryAnswerExact(recent);
    await foldCheckRollup(one.db);
    await expectRollupExact();
    await expectEveryAnswerExact(recent);
    const res = await one.post(DELETE, { id }, (await checkerOf(id)).token);
    expect(res.body.errcode, res.body.errmsg).toBe(0);
    await expectRollupExact();
    await expectEveryAnswerExact(recent);
  });
});

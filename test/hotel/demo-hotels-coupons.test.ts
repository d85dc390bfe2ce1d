import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoData, type DemoOptions } from '../../src/seed/demo/index.js';
import { parseDay } from '../../src/seed/demo/calendar.js';
import type { Db } from '../../src/platform/db/database.js';
import { adminUrl } from '../helpers/global-setup.js';
import { staffSession } from '../helpers/staff.js';
import { createTestApp, openTestDatabase, type TestApp, type TestDb } from '../helpers/test-app.js';

/** The demo generator's hotels, hotel orders and coupon templates (src/db/seed/demo/hotel.ts, coupons.ts). */
const NOW = '2026-06-30';
const BASE: DemoOptions = { scale: 1000, seed: 424242, now: parseDay(NOW)! };

async function urlOf(db: Db): Promise<string | null> {
  if (!process.env.DATABASE_URL) return null;
  const r = await sql<{ name: string }>`select current_database() as name`.execute(db);
  return adminUrl(process.env.DATABASE_URL, r.rows[0].name);
}

async function count(db: Db, query: string): Promise<number> {
  return Number((await sql.raw<{ n: number }>(query).execute(db)).rows[0].n);
}

/** An ordered digest of the rows of the demo's hotel and coupon tables (timestamps set by now() left out). */
async function digest(db: Db): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [table, drop] of [
    ['hotel_info', "- 'created_at' - 'updated_at'"],
    ['hotel_room_type', "- 'created_at' - 'updated_at'"],
    ['hotel_plan', "- 'created_at' - 'updated_at'"],
    ['hotel_order', ''],
    ['hotel_order_room', "- 'created_at' - 'updated_at'"],
    ['coupon_template', ''],
    ['coupon', ''],
  ] as const) {
    const r = await sql
      .raw<{ md5: string }>(
        `select md5(coalesce(string_agg((to_jsonb(t) - 'id' - 'order_id' - 'template_id' ${drop})::text, E'\\n' order by t.id), '')) as md5 from ${table} t`,
      )
      .execute(db);
    out[table] = r.rows[0].md5;
  }
  return out;
}

describe('demo hotels and coupons', () => {
  let a: TestDb;
  let b: TestDb;
  let t: TestApp;

  beforeAll(async () => {
    [a, b] = await Promise.all([openTestDatabase(), openTestDatabase()]);
    const [ra, rb] = await Promise.all([
      generateDemoData(a.database, { ...BASE, databaseUrl: await urlOf(a.db) }),
      generateDemoData(b.database, { ...BASE, databaseUrl: await urlOf(b.db) }),
    ]);
    expect([ra.status, rb.status]).toEqual(['created', 'created']);
    t = await createTestApp({}, { db: a });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([a?.close(), b?.close()]);
  });

  it('makes three hotels with room types, rate plans and orders, the same for the same seed', async () => {
    expect(await count(a.db, 'select count(*) as n from hotel_info')).toBe(3);
    expect(await count(a.db, 'select count(*) as n from hotel_room_type')).toBe(9);
    expect(await count(a.db, 'select count(*) as n from hotel_plan')).toBe(18);
    expect(await count(a.db, 'select count(*) as n from hotel_order')).toBe(60);
    expect(await digest(b.db)).toEqual(await digest(a.db));
  });

  it("keeps every order's nights and amounts consistent to the cent", async () => {
    const bad = (where: string) => count(a.db, `select count(*) as n from hotel_order o where ${where}`);
    expect(await bad('stay_nights <> (select count(*) from hotel_order_room r where r.order_id = o.id)')).toBe(0);
    expect(
      await bad('original_amount <> (select sum(total_price) from hotel_order_room r where r.order_id = o.id)'),
    ).toBe(0);
    expect(await bad('total_amount <> original_amount - discount_amount - coupon_amount')).toBe(0);
    expect(
      await bad(
        'exists (select 1 from hotel_order_room r where r.order_id = o.id and (r.room_date < o.check_in_date or r.room_date >= o.check_out_date))',
      ),
    ).toBe(0);
    expect(
      await bad(
        'exists (select 1 from hotel_plan p where p.id = o.plan_id and (p.room_type_id <> o.room_type_id or p.hotel_id <> o.hotel_id))',
      ),
    ).toBe(0);
    expect(
      await bad(
        'exists (select 1 from hotel_info h where h.id = o.hotel_id and (h.shop_id <> o.shop_id or h.merchant_id <> o.merchant_id))',
      ),
    ).toBe(0);
    // Only stays that ended by the reference date are checked out; none ends after the reference date + a month.
    expect(await bad(`status = 4 and check_out_date > '${NOW}'`)).toBe(0);
    expect(await bad(`check_in_date > '${NOW}'::date + 31`)).toBe(0);
    expect(await bad('payment_status = 0 and paid_amount <> 0')).toBe(0);
    expect(await count(a.db, 'select count(distinct status) as n from hotel_order')).toBeGreaterThanOrEqual(3);
  });

  it("answers a demo order through getHotelOrderDetail to its shop's staff", async () => {
    const order = await a.db
      .selectFrom('hotel_order')
      .select(['id', 'shop_id', 'original_amount'])
      .orderBy('id')
      .limit(1)
      .executeTakeFirstOrThrow();
    const shopStaff = await staffSession(t, { kind: 'shop', shopId: order.shop_id, permissions: ['hotel:read'] });
    const res = await t.post('/manage-api/hotelApi/getHotelOrderDetail', { id: order.id }, shopStaff.token);
    expect(res.body.errcode, res.body.errmsg).toBe(0);
    expect(res.body.data.roomList.reduce((s: number, r: { totalPrice: number }) => s + r.totalPrice, 0)).toBe(
      order.original_amount,
    );
    expect(res.body.data.hotelInfo.shopId).toBe(order.shop_id);
  });

  it('makes coupon templates of every kind, their coupons within every limit', async () => {
    expect(await count(a.db, 'select count(*) as n from coupon_template')).toBe(8);
    expect(await count(a.db, 'select count(distinct take_type) as n from coupon_template')).toBe(3);
    expect(await count(a.db, 'select count(distinct discount_type) as n from coupon_template')).toBe(2);
    expect(await count(a.db, 'select count(distinct validity_type) as n from coupon_template')).toBe(2);
    expect(await count(a.db, 'select count(distinct product_scope) as n from coupon_template')).toBe(2);
    expect(
      await count(
        a.db,
        `select count(*) as n from coupon_template t where total_count <> -1 and total_count < (select count(*) from coupon c where c.template_id = t.id)`,
      ),
    ).toBe(0);
    expect(
      await count(
        a.db,
        `select count(*) as n from (select c.template_id, c.mobile, count(*) as k, max(t.take_limit_count) as lim from coupon c
      join coupon_template t on t.id = c.template_id group by 1, 2) x where lim <> -1 and k > lim`,
      ),
    ).toBe(0);
    expect(await count(a.db, `select count(*) as n from coupon where status = 3 and valid_end_time >= '${NOW}'`)).toBe(
      0,
    );
    expect(
      await count(
        a.db,
        'select count(*) as n from coupon where status = 2 and (use_time < valid_start_time or use_time > valid_end_time)',
      ),
    ).toBe(0);
  });

  it('pages the demo templates with what a member may take', async () => {
    const platform = await staffSession(t, { kind: 'platform', permissions: ['coupon:read'] });
    const member = await a.db
      .selectFrom('coupon as c')
      .innerJoin('coupon_template as t', 't.id', 'c.template_id')
      .select(['c.mobile', 'c.template_id'])
      .where('t.take_limit_count', '=', 1)
      .where('t.take_type', '=', 1)
      .where('t.status', '=', 0)
      .where('t.validity_type', '=', 2)
      .orderBy('c.id')
      .limit(1)
      .executeTakeFirst();
    const res = await t.post(
      '/manage-api/promotion/couponTemplate/queryPromotionCouponTemplatePage',
      { pageSize: 50, mobile: member?.mobile },
      platform.token,
    );
    expect(res.body.data.total).toBe(8);
    const list = res.body.data.list as Array<{
      id: number;
      name: string;
      canTake: boolean;
      takeCount: number;
      totalCount: number;
    }>;
    expect(list.find((x) => x.name.includes('限量'))).toMatchObject({ canTake: false });
    expect(list.find((x) => x.name.includes('已停用'))).toMatchObject({ canTake: false });
    expect(list.find((x) => x.name.includes('黄金周'))).toMatchObject({ canTake: false });
    // A member who took the one coupon a template allows may not take another.
    expect(member).toBeDefined();
    expect(list.find((x) => x.id === member!.template_id)!.canTake).toBe(false);
    expect(list.find((x) => x.name.includes('湖畔酒店'))).toMatchObject({ canTake: true });
  });
});

import type { Insertable } from 'kysely';
import type { CouponTable, CouponTemplateTable } from '../../db/tables/coupon.js';
import type { Executor } from '../../platform/db/executor.js';
import type { Organisation } from './organisation.js';
import { Rng } from './prng.js';
import type { ScenicCatalog } from './scenic.js';

/**
 * Demo coupon templates (spec B 2.7) of the platform and of scenic-spot operators, one of each kind
 * an operator meets: amount off and percent off, fixed dates and days after taking, all products and
 * listed resources, taken by members / issued by staff / given to new users, one disabled, one used
 * up and one whose dates have passed; and the coupons demo members took of them (used, unused,
 * expired), within every total and per-member limit. Deterministic for a seed and reference date.
 */

const DAY_MS = 86_400_000;
const UNLIMITED = -1;

type Template = Omit<Insertable<CouponTemplateTable>, 'name'> & { name: string; takers: number };

export async function seedDemoCoupons(
  exec: Executor,
  o: { seed: number; now: Date; org: Organisation; scenic: ScenicCatalog },
): Promise<number> {
  const rng = new Rng(o.seed, 0xc0_0b0);
  const at = (days: number) => new Date(o.now.getTime() + days * DAY_MS);
  const spot = (i: number) => o.scenic.spots[i];
  const lastYear = o.now.getFullYear() - 1;
  const members = await exec
    .selectFrom('member')
    .select(['id', 'mobile', 'channel'])
    .where('mobile', 'is not', null)
    .orderBy('id')
    .limit(300)
    .execute();
  const limited = Math.min(50, members.length);

  const templates: Template[] = [
    {
      name: '年卡会员专享·景区门票满100减20',
      coupon_type: 2,
      take_type: 1,
      total_count: 5000,
      take_limit_count: 2,
      use_price: 10000,
      product_scope: 1,
      validity_type: 2,
      fixed_start_term: 0,
      fixed_end_term: 30,
      discount_type: 1,
      discount_price: 2000,
      takers: 80,
      description: '领取后 30 天内有效，景区门票订单满 100 元可用',
    },
    {
      name: '新用户注册礼·酒店9折',
      coupon_type: 3,
      take_type: 3,
      total_count: UNLIMITED,
      take_limit_count: 1,
      use_price: 0,
      product_scope: 1,
      validity_type: 2,
      fixed_start_term: 0,
      fixed_end_term: 60,
      discount_type: 2,
      discount_percent: 90,
      discount_limit_price: 10000,
      takers: 40,
      description: '新注册会员自动发放，最高优惠 100 元',
    },
    {
      name: `${lastYear}国庆黄金周·全场8.5折`,
      coupon_type: 1,
      take_type: 1,
      total_count: 2000,
      take_limit_count: 1,
      use_price: 5000,
      product_scope: 1,
      validity_type: 1,
      valid_start_time: new Date(lastYear, 9, 1),
      valid_end_time: new Date(lastYear, 9, 7, 23, 59, 59),
      discount_type: 2,
      discount_percent: 85,
      discount_limit_price: 5000,
      takers: 60,
    },
    {
      merchant_id: spot(0).merchantId,
      shop_id: spot(0).shopId,
      name: '青山湖森林公园门票立减10元',
      coupon_type: 2,
      take_type: 1,
      total_count: 500,
      take_limit_count: 1,
      use_price: 0,
      product_scope: 2,
      product_scope_values: [spot(0).spuId],
      validity_type: 1,
      valid_start_time: at(-30),
      valid_end_time: at(60),
      discount_type: 1,
      discount_price: 1000,
      takers: 30,
    },
    {
      merchant_id: spot(6).merchantId,
      shop_id: spot(6).shopId,
      name: '千岛湖湖畔酒店满500减50',
      coupon_type: 3,
      take_type: 1,
      total_count: UNLIMITED,
      take_limit_count: UNLIMITED,
      use_price: 50000,
      product_scope: 1,
      validity_type: 2,
      fixed_start_term: 1,
      fixed_end_term: 90,
      discount_type: 1,
      discount_price: 5000,
      takers: 25,
    },
    {
      merchant_id: spot(16).merchantId,
      shop_id: spot(16).shopId,
      name: '西溪湿地员工关怀券',
      coupon_type: 2,
      take_type: 2,
      total_count: 200,
      take_limit_count: 1,
      use_price: 0,
      product_scope: 2,
      product_scope_values: [spot(16).spuId, spot(17).spuId],
      validity_type: 2,
      fixed_start_term: 0,
      fixed_end_term: 30,
      discount_type: 1,
      discount_price: 4000,
      takers: 20,
    },
    {
      merchant_id: spot(17).merchantId,
      shop_id: spot(17).shopId,
      name: '飞来峰石刻园特惠（已停用）',
      status: 1,
      coupon_type: 2,
      take_type: 1,
      total_count: 300,
      take_limit_count: 1,
      use_price: 3000,
      product_scope: 2,
      product_scope_values: [spot(17).spuId],
      validity_type: 2,
      fixed_start_term: 0,
      fixed_end_term: 15,
      discount_type: 1,
      discount_price: 800,
      takers: 10,
    },
    {
      merchant_id: spot(8).merchantId,
      shop_id: spot(8).shopId,
      name: '清溪古镇限量体验券',
      coupon_type: 2,
      take_type: 1,
      total_count: Math.max(1, limited),
      take_limit_count: 1,
      use_price: 0,
      product_scope: 2,
      product_scope_values: [spot(8).spuId],
      validity_type: 2,
      fixed_start_term: 0,
      fixed_end_term: 7,
      discount_type: 2,
      discount_percent: 50,
      discount_limit_price: 3500,
      takers: limited,
    },
  ];

  let written = 0;
  for (const { takers, ...t } of templates) {
    const created = at(-rng.range(60, 400));
    const row = await exec
      .insertInto('coupon_template')
      .values({ status: 0, ...t, created_at: created, updated_at: created })
      .returning('id')
      .executeTakeFirstOrThrow();
    // Distinct members: every template's per-member limit is at least one coupon.
    const chosen = [...members];
    for (let i = chosen.length - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [chosen[i], chosen[j]] = [chosen[j], chosen[i]];
    }
    const coupons: Array<Insertable<CouponTable>> = chosen.slice(0, Math.min(takers, chosen.length)).map((m) => {
      const takenAt =
        t.validity_type === 1
          ? new Date((t.valid_start_time as Date).getTime() - rng.range(1, 20) * DAY_MS)
          : at(-rng.range(0, 120));
      const start =
        t.validity_type === 1
          ? (t.valid_start_time as Date)
          : new Date(takenAt.getTime() + (t.fixed_start_term ?? 0) * DAY_MS);
      const end =
        t.validity_type === 1
          ? (t.valid_end_time as Date)
          : new Date(takenAt.getTime() + (t.fixed_end_term ?? 0) * DAY_MS);
      const used = rng.chance(0.35) && start.getTime() <= o.now.getTime();
      const status = used ? 2 : end.getTime() < o.now.getTime() ? 3 : 1;
      return {
        template_id: row.id,
        merchant_id: t.merchant_id ?? null,
        shop_id: t.shop_id ?? null,
        member_id: m.id,
        mobile: m.mobile!,
        channel: m.channel ?? 3,
        take_type: t.take_type,
        status,
        valid_start_time: start,
        valid_end_time: end,
        use_time: used
          ? new Date(Math.min(start.getTime() + rng.range(0, 5) * DAY_MS, end.getTime(), o.now.getTime()))
          : null,
        created_at: takenAt,
        updated_at: takenAt,
      };
    });
    if (coupons.length) await exec.insertInto('coupon').values(coupons).execute();
    written += 1;
  }
  return written;
}

import type { Insertable } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CouponTemplateTable } from '../../src/db/tables/coupon.js';
import { createMerchant, createShop, createSpu, randomMobile, uniq } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/** Coupon templates page (spec B 2.7, 4.7). */
const PATH = '/manage-api/promotion/couponTemplate/queryPromotionCouponTemplatePage';
const DAY = 86_400_000;

let t: TestApp;
let platform: StaffSession;
let mA: number;
let shopA: number;
let spuA: number;

beforeAll(async () => {
  t = await createTestApp();
  platform = await staffSession(t, { kind: 'platform', permissions: ['coupon:read'] });
  mA = await createMerchant(t.db);
  shopA = await createShop(t.db, { merchant_id: mA });
  spuA = await createSpu(t.db, { shop_id: shopA });
});
afterAll(() => t?.close());

type Tpl = Record<string, unknown> & { id: number; canTake: boolean; takeCount: number; useCount: number };

async function template(over: Partial<Insertable<CouponTemplateTable>> = {}): Promise<number> {
  const r = await t.db
    .insertInto('coupon_template')
    .values({
      name: uniq('Coupon '),
      total_count: -1,
      take_limit_count: 1,
      take_type: 1,
      validity_type: 2,
      fixed_start_term: 0,
      fixed_end_term: 30,
      discount_type: 1,
      discount_price: 1000,
      ...over,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

async function take(templateId: number, mobile: string, o: { channel?: number; status?: number } = {}): Promise<void> {
  await t.db
    .insertInto('coupon')
    .values({
      template_id: templateId,
      mobile,
      channel: o.channel ?? 3,
      take_type: 1,
      status: o.status ?? 1,
      valid_start_time: new Date(),
      valid_end_time: new Date(Date.now() + 30 * DAY),
    })
    .execute();
}

const page = async (filter: object, who = platform) => {
  const res = await t.post(PATH, { pageSize: 200, ...filter }, who.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data as { list: Tpl[]; total: number };
};
const ids = async (filter: object, who = platform) => (await page(filter, who)).list.map((x) => x.id);

describe('rejection matrix', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: PATH,
    permission: 'coupon:read',
    validBody: () => ({}),
    badInputs: [
      { body: () => ({ canTakeTypes: [4] }), field: 'canTakeTypes[0]' },
      { body: () => ({ discountType: 3 }), field: 'discountType' },
      { body: () => ({ productScope: 0 }), field: 'productScope' },
      { body: () => ({ status: 2 }), field: 'status' },
      { body: () => ({ mobile: '12345' }), field: 'mobile' },
      { body: () => ({ channel: 9 }), field: 'channel' },
      { body: () => ({ createTimeRange: ['2026-03-01', '2026-02-01'] }), field: 'createTimeRange' },
      { body: () => ({ pageSize: 1.5 }), field: 'pageSize' },
    ],
  });
});

describe('the page', () => {
  it('answers every field of spec B 2.7 with taken and used counts from the coupons', async () => {
    const name = uniq('Spring ');
    const id = await template({
      merchant_id: mA,
      shop_id: shopA,
      name,
      description: 'spring offer',
      coupon_type: 2,
      total_count: 100,
      take_limit_count: 2,
      use_price: 10000,
      product_scope: 2,
      product_scope_values: [spuA],
      validity_type: 1,
      valid_start_time: new Date('2026-03-01T00:00:00+08:00'),
      valid_end_time: new Date('2099-03-31T23:59:59+08:00'),
      fixed_start_term: null,
      fixed_end_term: null,
      discount_type: 2,
      discount_percent: 85,
      discount_price: null,
      discount_limit_price: 3000,
      created_by: platform.userId,
      updated_by: platform.userId,
    });
    await take(id, randomMobile(), { status: 2 });
    await take(id, randomMobile(), { status: 1 });
    await take(id, randomMobile(), { status: 3 });
    const [tpl] = (await page({ name })).list;
    expect(tpl).toEqual({
      id,
      merchantId: mA,
      shopId: shopA,
      couponType: 2,
      name,
      description: 'spring offer',
      status: 0,
      totalCount: 100,
      takeLimitCount: 2,
      takeType: 1,
      usePrice: 10000,
      productScope: 2,
      productScopeValues: [spuA],
      validityType: 1,
      validStartTime: '2026-03-01 00:00:00',
      validEndTime: '2099-03-31 23:59:59',
      fixedStartTerm: null,
      fixedEndTerm: null,
      discountType: 2,
      discountPercent: 85,
      discountPrice: null,
      discountLimitPrice: 3000,
      takeCount: 3,
      useCount: 1,
      creator: String(platform.userId),
      createTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      updater: String(platform.userId),
      updateTime: expect.any(String),
      deleted: false,
      canTake: true,
    });
  });

  it('filters by owner, type, name, status, discount type, creation time, take types and product scope', async () => {
    const tag = uniq('flt');
    const a = await template({
      name: `${tag} a`,
      merchant_id: mA,
      shop_id: shopA,
      coupon_type: 3,
      discount_type: 2,
      discount_percent: 90,
      take_type: 3,
    });
    const b = await template({
      name: `${tag} b`,
      merchant_id: mA,
      status: 1,
      product_scope: 3,
      product_scope_values: [77],
    });
    const c = await template({ name: `${tag} c`, take_type: 2, created_at: new Date('2025-01-15T12:00:00+08:00') });
    await template({ name: `${tag} deleted`, is_deleted: true });
    expect(await ids({ name: tag })).toEqual([c, b, a]);
    expect(await ids({ name: tag, merchantId: mA })).toEqual([b, a]);
    expect(await ids({ name: tag, shopId: shopA })).toEqual([a]);
    expect(await ids({ name: tag, couponType: 3 })).toEqual([a]);
    expect(await ids({ name: tag, status: 1 })).toEqual([b]);
    expect(await ids({ name: tag, discountType: 2 })).toEqual([a]);
    expect(await ids({ name: tag, createTimeRange: ['2025-01-01', '2025-01-31'] })).toEqual([c]);
    expect(await ids({ name: tag, canTakeTypes: [2, 3] })).toEqual([c, a]);
    expect(await ids({ name: tag, productScope: 3, productScopeValue: 77 })).toEqual([b]);
    expect(await ids({ name: tag, productScopeValue: 78 })).toEqual([]);
    const p = await t.post(PATH, { name: tag, pageSize: 2, pageNum: 2 }, platform.token);
    expect(p.body.data).toEqual({ list: [expect.objectContaining({ id: a })], total: 3 });
  });

  it('finds the templates usable for a resource: all products or listing it, of its merchant or the platform', async () => {
    const tag = uniq('goods');
    const otherMerchant = await createMerchant(t.db);
    const all = await template({ name: `${tag} all platform` });
    const listing = await template({
      name: `${tag} listing`,
      merchant_id: mA,
      product_scope: 2,
      product_scope_values: [spuA, 999],
    });
    await template({ name: `${tag} other product`, merchant_id: mA, product_scope: 2, product_scope_values: [999] });
    await template({ name: `${tag} other merchant`, merchant_id: otherMerchant });
    expect(await ids({ name: tag, goodsId: spuA })).toEqual([listing, all]);
  });
});

describe('canTake', () => {
  it("follows the member's take limit for the given mobile, counting coupons of that channel", async () => {
    const name = uniq('Limit ');
    const id = await template({ name, take_limit_count: 2 });
    const mobile = randomMobile();
    const canTake = async (f: object) => (await page({ name, ...f })).list.find((x) => x.id === id)!.canTake;
    await take(id, mobile, { channel: 3 });
    expect(await canTake({ mobile })).toBe(true);
    await take(id, mobile, { channel: 4 });
    expect(await canTake({ mobile })).toBe(false);
    expect(await canTake({ mobile, channel: 3 })).toBe(true);
    await take(id, mobile, { channel: 3 });
    expect(await canTake({ mobile, channel: 3 })).toBe(false);
    expect(await canTake({ mobile: randomMobile() })).toBe(true);
    // Without a mobile there is no member to count: only the template's own state decides.
    expect(await canTake({})).toBe(true);
  });

  it('is false when disabled, not taken by users, past its dates or used up; -1 totals never run out', async () => {
    const tag = uniq('can');
    const mobile = randomMobile();
    const make = (name: string, over: Partial<Insertable<CouponTemplateTable>>) =>
      template({ name: `${tag} ${name}`, ...over });
    const open = await make('open', { total_count: -1, take_limit_count: -1 });
    const disabled = await make('disabled', { status: 1 });
    const byStaff = await make('by staff', { take_type: 2 });
    const newUsers = await make('new users', { take_type: 3 });
    const past = await make('past', {
      validity_type: 1,
      valid_start_time: new Date(Date.now() - 10 * DAY),
      valid_end_time: new Date(Date.now() - DAY),
      fixed_start_term: null,
      fixed_end_term: null,
    });
    const usedUp = await make('used up', { total_count: 2, take_limit_count: -1 });
    await take(usedUp, randomMobile());
    await take(usedUp, randomMobile());
    for (let i = 0; i < 5; i++) await take(open, mobile);
    const list = (await page({ name: tag, mobile })).list;
    const flag = (id: number) => list.find((x) => x.id === id)!.canTake;
    expect([open, disabled, byStaff, newUsers, past, usedUp].map(flag)).toEqual([
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('scoping', () => {
  it('shows merchant and shop users their own templates only', async () => {
    const tag = uniq('scope');
    const shopA2 = await createShop(t.db, { merchant_id: mA });
    const merchantLevel = await template({ name: `${tag} merchant`, merchant_id: mA });
    const inShop = await template({ name: `${tag} shop`, merchant_id: mA, shop_id: shopA });
    const inSibling = await template({ name: `${tag} sibling`, merchant_id: mA, shop_id: shopA2 });
    const platformWide = await template({ name: `${tag} platform` });
    const merchant = await staffSession(t, { kind: 'merchant', merchantId: mA, permissions: ['coupon:read'] });
    const shop = await staffSession(t, { kind: 'shop', shopId: shopA, permissions: ['coupon:read'] });
    const stranger = await staffSession(t, { kind: 'merchant', permissions: ['coupon:read'] });
    expect(await ids({ name: tag })).toEqual([platformWide, inSibling, inShop, merchantLevel]);
    expect(await ids({ name: tag }, merchant)).toEqual([inSibling, inShop, merchantLevel]);
    expect(await ids({ name: tag }, shop)).toEqual([inShop]);
    expect(await ids({ name: tag }, stranger)).toEqual([]);
  });
});

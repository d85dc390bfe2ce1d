import {
  createCardModel,
  createCardModelRule,
  createChecker,
  createMerchant,
  createShop,
  createSku,
  createSpu,
  uniq,
} from '../helpers/factories.js';
import type { TestApp } from '../helpers/test-app.js';

/**
 * A small data set whose settlement is worked out by hand (the figures in EXPECTED).
 *
 * Card model M, period 2026-03-10 00:00:00 – 2026-03-20 23:59:59, issueNum 7, profit 33.33 (3333).
 * Merchant A (shop A1): R1 way 1 (buy_price 50.00, factor 0.95) with price periods 03-01…03-12 at
 * 40.00 × 0.9 and 03-16…04-30 at 60.00 × 0.85 (03-13…03-15 uncovered → buy_price); R2 way 2 (buy-out
 * 1234.56); R3 way 3 (share 12.5 %). Merchant B (shop B1): R4 and R5 way 4; R6 way 5.
 *
 * Checks (consume_num): R1 03-11 ×2, 03-12 ×1, 03-14 ×1, 03-17 ×3, and outside the period or deleted:
 * 03-09 ×1, 03-21 ×1, 03-11 ×5 (deleted); R2 03-15 ×1; R4 03-12 ×1; R5 03-18 ×3; R6 03-19 ×2.
 * Allocation details of M at R6: 2026-03 11.11 (counted), 2026-02 9.99 and 2026-04 7.77 (outside the
 * period's months), 2026-03 50.00 of a deleted batch (not counted).
 */
export interface World {
  merchantA: number;
  shopA1: number;
  merchantB: number;
  shopB1: number;
  model: number;
  modelName: string;
  r: Record<'r1' | 'r2' | 'r3' | 'r4' | 'r5' | 'r6', { spu: number; sku: number; name: string }>;
  card: number;
  cardNumber: string;
  checker: number;
}

export const PERIOD = ['2026-03-10 00:00:00', '2026-03-20 23:59:59'];
export const ISSUE = 7;
export const PROFIT = 3333;

/** The expected details by resource key (hand computed from the data set above). */
export const EXPECTED = {
  r1: {
    settlementWay: 1,
    checkNum: 7,
    settlementAmount: 30850,
    ticketPriceInfo: [
      // 03-10…03-12 at 40.00: 3 checks → 120.00 × 0.9 = 108.00
      {
        startDate: '2026-03-10 00:00:00',
        endDate: '2026-03-12 23:59:59',
        price: 4000,
        checkNum: 3,
        ticketTotalAmount: 12000,
        settlementFactor: 0.9,
        settlementAmount: 10800,
      },
      // 03-14, no price period: buy_price 50.00 × 1 × 0.95 = 47.50
      {
        startDate: '2026-03-14 00:00:00',
        endDate: '2026-03-14 23:59:59',
        price: 5000,
        checkNum: 1,
        ticketTotalAmount: 5000,
        settlementFactor: 0.95,
        settlementAmount: 4750,
      },
      // 03-16…03-20 at 60.00: 3 checks → 180.00 × 0.85 = 153.00
      {
        startDate: '2026-03-16 00:00:00',
        endDate: '2026-03-20 23:59:59',
        price: 6000,
        checkNum: 3,
        ticketTotalAmount: 18000,
        settlementFactor: 0.85,
        settlementAmount: 15300,
      },
    ],
  },
  r2: { settlementWay: 2, checkNum: 1, settlementAmount: 123456, ticketPriceInfo: [] },
  // 7 × 33.33 × 12.5 % = 29.16375 → 29.16
  r3: { settlementWay: 3, checkNum: 0, settlementAmount: 2916, ticketPriceInfo: [] },
  // pool 7 × 33.33 = 233.31 split 1 : 3 → 58.3275 / 174.9825 → 58.32 + 0.01 (larger remainder) / 174.98
  r4: { settlementWay: 4, checkNum: 1, settlementAmount: 5833, ticketPriceInfo: [] },
  r5: { settlementWay: 4, checkNum: 3, settlementAmount: 17498, ticketPriceInfo: [] },
  r6: { settlementWay: 5, checkNum: 2, settlementAmount: 1111, ticketPriceInfo: [] },
} as const;
export const TOTAL_A = 30850 + 123456 + 2916;
export const TOTAL_B = 5833 + 17498 + 1111;

export async function addCheck(
  t: TestApp,
  w: World,
  key: keyof World['r'],
  at: string,
  consume = 1,
  o: { deleted?: boolean; name?: string; mobile?: string } = {},
): Promise<number> {
  const r = await t.db
    .insertInto('card_check')
    .values({
      card_id: w.card,
      card_model_id: w.model,
      sku_id: w.r[key].sku,
      resource_id: w.r[key].spu,
      checker_id: w.checker,
      tourist_name: o.name ?? '张三',
      tourist_mobile: o.mobile ?? '13800001111',
      consume_num: consume,
      check_time: at,
      check_date: at.slice(0, 10),
      is_deleted: o.deleted ?? false,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

async function allocation(
  t: TestApp,
  w: World,
  year: number,
  month: number,
  amount: number,
  deleted = false,
): Promise<void> {
  const b = await t.db
    .insertInto('distribute_batch')
    .values({
      batch_no: uniq('DA').slice(0, 40),
      year,
      month,
      quarter: Math.ceil(month / 3),
      card_model_id: w.model,
      card_model_name: w.modelName,
      card_model_price: 19800,
      valid_user_count: 1,
      total_distribute_amount: amount,
      park_count: 1,
      exec_time: new Date(),
      calc_mode: 'ratio',
      ratio: 80,
      is_deleted: deleted,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.db
    .insertInto('distribute_detail')
    .values({
      batch_id: b.id,
      year,
      month,
      card_model_id: w.model,
      park_id: w.r.r6.spu,
      park_name: w.r.r6.name,
      merchant_id: w.merchantB,
      shop_id: w.shopB1,
      check_num: 1,
      distribute_percent: 100,
      distribute_amount: amount,
    })
    .execute();
}

export async function buildWorld(t: TestApp): Promise<World> {
  const db = t.db;
  const merchantA = await createMerchant(db, { name: `景区公司A ${uniq()}` });
  const shopA1 = await createShop(db, { merchant_id: merchantA });
  const merchantB = await createMerchant(db, { name: `景区公司B ${uniq()}` });
  const shopB1 = await createShop(db, { merchant_id: merchantB });
  const modelName = `畅游年卡 ${uniq()}`;
  const model = await createCardModel(db, { name: modelName });
  const spot = async (merchant: number, shop: number, name: string, rule: Record<string, unknown>) => {
    const spu = await createSpu(db, { merchant_id: merchant, shop_id: shop, name });
    const sku = await createSku(db, { goods_id: spu });
    await createCardModelRule(db, { card_model_id: model, resource_id: spu, buy_price: null, ...rule });
    return { spu, sku, name };
  };
  const r = {
    r1: await spot(merchantA, shopA1, '西湖', { settlement_way: 1, buy_price: 5000, settlement_factor: '0.95' }),
    r2: await spot(merchantA, shopA1, '灵隐寺', { settlement_way: 2, buyout_amount: 123456 }),
    r3: await spot(merchantA, shopA1, '宋城', { settlement_way: 3, share_percent: '12.5' }),
    r4: await spot(merchantB, shopB1, '千岛湖', { settlement_way: 4 }),
    r5: await spot(merchantB, shopB1, '雁荡山', { settlement_way: 4 }),
    r6: await spot(merchantB, shopB1, '普陀山', { settlement_way: 5 }),
  };
  const rule1 = await db
    .selectFrom('card_model_resource_rule')
    .select('id')
    .where('card_model_id', '=', model)
    .where('resource_id', '=', r.r1.spu)
    .executeTakeFirstOrThrow();
  await db
    .insertInto('card_model_resource_price')
    .values([
      { rule_id: rule1.id, start_date: '2026-03-01', end_date: '2026-03-12', price: 4000, settlement_factor: '0.9' },
      { rule_id: rule1.id, start_date: '2026-03-16', end_date: '2026-04-30', price: 6000, settlement_factor: '0.85' },
    ])
    .execute();
  const cardNumber = uniq('C').slice(0, 32);
  const card = (
    await db
      .insertInto('card')
      .values({
        card_number: cardNumber,
        card_model_id: model,
        status: 2,
        active_time: '2026-03-01 10:00:00',
        expire_time: '2027-03-01 10:00:00',
      })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;
  const checker = (await createChecker(db, { merchant_id: merchantA, name: '检票员小王' })).id;
  const w: World = { merchantA, shopA1, merchantB, shopB1, model, modelName, r, card, cardNumber, checker };

  await addCheck(t, w, 'r1', '2026-03-11 09:00:00', 2, { name: '李四', mobile: '13900002222' });
  await addCheck(t, w, 'r1', '2026-03-12 10:00:00');
  await addCheck(t, w, 'r1', '2026-03-14 10:00:00');
  await addCheck(t, w, 'r1', '2026-03-17 10:00:00', 3);
  await addCheck(t, w, 'r1', '2026-03-09 23:59:59');
  await addCheck(t, w, 'r1', '2026-03-21 00:00:00');
  await addCheck(t, w, 'r1', '2026-03-11 11:00:00', 5, { deleted: true });
  await addCheck(t, w, 'r2', '2026-03-15 10:00:00');
  await addCheck(t, w, 'r4', '2026-03-12 10:00:00');
  await addCheck(t, w, 'r5', '2026-03-18 10:00:00', 3);
  await addCheck(t, w, 'r6', '2026-03-19 10:00:00', 2);
  await allocation(t, w, 2026, 3, 1111);
  await allocation(t, w, 2026, 2, 999);
  await allocation(t, w, 2026, 4, 777);
  await allocation(t, w, 2026, 3, 5000, true);
  return w;
}

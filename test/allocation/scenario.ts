import { createMerchant, createShop } from '../helpers/factories.js';
import type { TestApp } from '../helpers/test-app.js';
import { createCard, createCardModel, createCheck, createPark, type Park } from './fixtures.js';

/**
 * A small data set whose allocation is worked out by hand (the expected figures below).
 *
 * Card model M1 (198.00, 12 months, allocation enabled) admits parks P1 (merchant A, shop A1),
 * P2 (merchant A, shop A2) and P3 (merchant B) by settlement way 5, and P4 (merchant A) by way 1.
 * M2 (98.00, allocation enabled) has no way-5 park; M3 is not allocation-enabled.
 *
 * M1 cards (active → expire, status): c1 2026-01-10 → 2027-01-10 bound; c2 2025-06-01 → 2026-05-01 00:00:00;
 * c3 active 2026-05-31 23:59:59; c4 active 2026-06-01 00:00:00; c5 2025-01-01 → 2026-04-30 23:59:59;
 * c6 disabled; c7 expired (status 4) 2025-05-20 → 2026-05-20; c8 deleted; c9 never activated.
 * Valid users: April c1 c2 c5 c7 = 4; May c1 c2 c3 c7 = 4; June and August c1 c3 c4 = 3.
 *
 * M1 checks (consume_num): May P1 1 (05-01 00:00:00) + 2, P2 1 (+ 5 deleted), P3 2 + 1 (05-31 23:59:59),
 * P4 5 (way 1, not counted); April P3 1 (04-30 23:59:59); June P3 1 (06-01 00:00:00); none in August.
 * An M2 check at P1 in May (4) counts for M2 only.
 */
export interface Scenario {
  merchantA: number;
  shopA1: number;
  shopA2: number;
  merchantB: number;
  shopB1: number;
  merchantC: number;
  m1: number;
  m2: number;
  m3: number;
  p1: Park;
  p2: Park;
  p3: Park;
  p4: Park;
  parkNames: { p1: string; p2: string; p3: string };
}

export async function buildScenario(t: TestApp): Promise<Scenario> {
  const db = t.db;
  const merchantA = await createMerchant(db);
  const shopA1 = await createShop(db, { merchant_id: merchantA });
  const shopA2 = await createShop(db, { merchant_id: merchantA });
  const merchantB = await createMerchant(db);
  const shopB1 = await createShop(db, { merchant_id: merchantB });
  const merchantC = await createMerchant(db);
  await createShop(db, { merchant_id: merchantC });

  const m1 = await createCardModel(db, {
    name: '畅游年卡 test',
    price: 19800,
    validity_months: 12,
    allocation_enabled: true,
  });
  const m2 = await createCardModel(db, {
    name: '惠民年卡 test',
    price: 9800,
    validity_months: 12,
    allocation_enabled: true,
  });
  const m3 = await createCardModel(db, {
    name: '体验卡 test',
    price: 5000,
    validity_months: 1,
    allocation_enabled: false,
  });

  const parkNames = { p1: '西湖景区', p2: '灵隐寺', p3: '千岛湖' };
  const p1 = await createPark(db, { cardModelId: m1, shopId: shopA1, merchantId: merchantA, name: parkNames.p1 });
  const p2 = await createPark(db, { cardModelId: m1, shopId: shopA2, merchantId: merchantA, name: parkNames.p2 });
  const p3 = await createPark(db, { cardModelId: m1, shopId: shopB1, merchantId: merchantB, name: parkNames.p3 });
  const p4 = await createPark(db, { cardModelId: m1, shopId: shopA1, merchantId: merchantA, name: '宋城', way: 1 });
  await createPark(db, { cardModelId: m3, shopId: shopA1, merchantId: merchantA, name: '体验景区' });
  // M2 admits P1 by check count (way 1): it has no park to allocate to.
  await db
    .insertInto('card_model_resource_rule')
    .values({ card_model_id: m2, resource_id: p1.spuId, settlement_way: 1, buy_price: 3000 })
    .execute();

  const card = (active: string | null, expire: string | null, o: { status?: number; is_deleted?: boolean } = {}) =>
    createCard(db, { card_model_id: m1, active_time: active, expire_time: expire, ...o });
  const c1 = await card('2026-01-10 09:00:00', '2027-01-10 09:00:00');
  await card('2025-06-01 00:00:00', '2026-05-01 00:00:00');
  await card('2026-05-31 23:59:59', '2027-05-31 23:59:59', { status: 1 });
  await card('2026-06-01 00:00:00', '2027-06-01 00:00:00');
  await card('2025-01-01 00:00:00', '2026-04-30 23:59:59', { status: 4 });
  await card('2026-02-01 00:00:00', '2027-02-01 00:00:00', { status: 3 });
  await card('2025-05-20 10:00:00', '2026-05-20 10:00:00', { status: 4 });
  await card('2026-02-01 00:00:00', '2027-02-01 00:00:00', { is_deleted: true });
  await card(null, null, { status: 1 });
  const m2Card = await createCard(db, {
    card_model_id: m2,
    active_time: '2026-03-01 00:00:00',
    expire_time: '2027-03-01 00:00:00',
  });

  const check = (park: Park, at: string, consumeNum = 1, deleted = false) =>
    createCheck(db, { cardId: c1, cardModelId: m1, park, at, consumeNum, deleted });
  await check(p1, '2026-05-01 00:00:00');
  await check(p1, '2026-05-15 10:00:00', 2);
  await check(p2, '2026-05-10 11:00:00');
  await check(p2, '2026-05-11 11:00:00', 5, true);
  await check(p3, '2026-05-20 14:00:00', 2);
  await check(p3, '2026-05-31 23:59:59');
  await check(p4, '2026-05-12 09:00:00', 5);
  await check(p3, '2026-04-30 23:59:59');
  await check(p3, '2026-06-01 00:00:00');
  await createCheck(db, { cardId: m2Card, cardModelId: m2, park: p1, at: '2026-05-12 12:00:00', consumeNum: 4 });

  return { merchantA, shopA1, shopA2, merchantB, shopB1, merchantC, m1, m2, m3, p1, p2, p3, p4, parkNames };
}

/** Hand-computed: M1 May, ratio 80. total ⌊4 × 19800 × 80 ÷ 1200⌋ = 5280 over checks 3 : 1 : 3. */
export function mayRatio80(s: Scenario) {
  return {
    validUserCount: 4,
    totalDistributeAmount: 5280,
    parkCount: 3,
    // 5280 × 3 ÷ 7 = 2262 r 6, 5280 ÷ 7 = 754 r 2: the two cents left go to the remainders 6 (P1, P3).
    details: [
      { parkId: s.p1.spuId, parkName: s.parkNames.p1, checkNum: 3, distributePercent: 42.8571, distributeAmount: 2263 },
      { parkId: s.p2.spuId, parkName: s.parkNames.p2, checkNum: 1, distributePercent: 14.2857, distributeAmount: 754 },
      { parkId: s.p3.spuId, parkName: s.parkNames.p3, checkNum: 3, distributePercent: 42.8571, distributeAmount: 2263 },
    ],
  };
}

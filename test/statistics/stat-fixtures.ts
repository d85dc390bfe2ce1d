import ExcelJS from 'exceljs';
import { idCheckDigit } from '../../src/seed/demo/people.js';
import type { Db } from '../../src/platform/db/database.js';
import {
  createCard,
  createCardBinding,
  createCardModel,
  createCardModelRule,
  createMember,
  createMerchant,
  createShop,
  createSku,
  createSpu,
  uniq,
} from '../helpers/factories.js';

/**
 * A small data set whose statistics are counted by hand in statistics.test.ts. Merchant A (shops A1,
 * A2, scenic spot SA1 at A1) and merchant B (shop B1, spot SB); model M1 (platform's, admits SA1 at
 * 50.00 and SB at 30.00) and M2 (merchant B's, admits SB at 40.00). Times are fixed days of 2026;
 * expiry is relative to now, so "in force" and ages hold whenever the tests run.
 */
export interface StatWorld {
  merchantA: number;
  merchantB: number;
  shopA1: number;
  shopA2: number;
  shopB1: number;
  spuA1: number;
  spuB: number;
  skuA1: number;
  skuB: number;
  m1: number;
  m2: number;
  m1Name: string;
  m2Name: string;
  cards: Record<'c1' | 'c2' | 'c3' | 'c4' | 'c5' | 'c6' | 'c7' | 'c8' | 'c9', number>;
  merchantAName: string;
}

const DAY = 86_400_000;
const at = (text: string) => new Date(text.replace(' ', 'T') + '+08:00');

/** An 18-digit resident ID number with a right check digit. */
export function residentId(district: string, birth: string, male: boolean): string {
  const first17 = district + birth + (male ? '131' : '242');
  return first17 + idCheckDigit(first17);
}

export async function buildStatWorld(db: Db): Promise<StatWorld> {
  const year = new Date().getFullYear();
  const merchantAName = `Merchant A ${uniq()}`;
  const merchantA = await createMerchant(db, { name: merchantAName });
  const merchantB = await createMerchant(db);
  const shopA1 = await createShop(db, { merchant_id: merchantA, city_id: '330100' });
  const shopA2 = await createShop(db, { merchant_id: merchantA });
  const shopB1 = await createShop(db, { merchant_id: merchantB, city_id: '310100' });
  const spuA1 = await createSpu(db, { shop_id: shopA1, name: 'Lake A1' });
  const spuB = await createSpu(db, { shop_id: shopB1, name: 'Hill B' });
  const skuA1 = await createSku(db, { goods_id: spuA1 });
  const skuB = await createSku(db, { goods_id: spuB });
  const m1Name = `M1 ${uniq()}`;
  const m2Name = `M2 ${uniq()}`;
  const m1 = await createCardModel(db, { name: m1Name, price: 25800 });
  const m2 = await createCardModel(db, { name: m2Name, price: 9800, merchant_id: merchantB });
  await createCardModelRule(db, { card_model_id: m1, resource_id: spuA1, buy_price: 5000 });
  await createCardModelRule(db, { card_model_id: m1, resource_id: spuB, buy_price: 3000 });
  await createCardModelRule(db, { card_model_id: m2, resource_id: spuB, buy_price: 4000 });
  // M1 cost 198.00 until April 2026, 258.00 since; M2 has no recorded history (its current price).
  await db
    .insertInto('card_model_price_history')
    .values([
      {
        card_model_id: m1,
        price: 19800,
        validity_months: 12,
        valid_from: at('2026-01-01 00:00:00'),
        valid_to: at('2026-04-01 00:00:00'),
      },
      { card_model_id: m1, price: 25800, validity_months: 12, valid_from: at('2026-04-01 00:00:00'), valid_to: null },
    ])
    .execute();

  const future = new Date(Date.now() + 365 * DAY);
  const card = (o: Parameters<typeof createCard>[1]) => createCard(db, { expire_time: future, ...o });
  const cards = {
    c1: await card({
      card_model_id: m1,
      merchant_id: merchantA,
      shop_id: shopA1,
      status: 2,
      medium: 1,
      channel: 6,
      active_time: at('2026-03-01 10:00:00'),
    }),
    c2: await card({
      card_model_id: m1,
      merchant_id: merchantA,
      shop_id: shopA1,
      status: 2,
      medium: 2,
      channel: 1,
      is_donation: true,
      active_time: at('2026-03-01 15:00:00'),
    }),
    c3: await card({
      card_model_id: m1,
      merchant_id: merchantA,
      shop_id: shopA2,
      status: 1,
      medium: 2,
      channel: 6,
      active_time: at('2026-03-02 09:00:00'),
    }),
    c4: await card({
      card_model_id: m1,
      merchant_id: merchantA,
      shop_id: shopA2,
      status: 3,
      medium: 2,
      channel: 3,
      active_time: at('2026-04-10 09:00:00'),
    }),
    c5: await card({
      card_model_id: m1,
      merchant_id: merchantA,
      shop_id: null,
      status: 4,
      medium: 1,
      channel: 6,
      active_time: at('2026-04-10 12:00:00'),
      expire_time: at('2026-07-01 00:00:00'),
    }),
    c6: await card({
      card_model_id: m2,
      merchant_id: merchantB,
      shop_id: shopB1,
      status: 2,
      medium: 2,
      channel: 7,
      active_time: at('2026-03-01 11:00:00'),
    }),
    c7: await card({
      card_model_id: m2,
      merchant_id: merchantB,
      shop_id: shopB1,
      status: 2,
      medium: 2,
      channel: 7,
      active_time: at('2026-05-20 11:00:00'),
      expire_time: at('2026-08-01 00:00:00'),
    }),
    c8: await card({
      card_model_id: m1,
      merchant_id: merchantA,
      shop_id: shopA1,
      status: 1,
      medium: 2,
      channel: 1,
      active_time: null,
      expire_time: null,
    }),
    c9: await card({
      card_model_id: m1,
      merchant_id: merchantB,
      shop_id: shopB1,
      status: 2,
      medium: 2,
      channel: 1,
      active_time: at('2026-03-05 10:00:00'),
    }),
  };

  // Holders. H1: a member (male, 36, Hangzhou district) whose binding's ID says otherwise; H2: ID only
  // (female, 16, Shanghai), holding c2 and c7; H3: ID only (male, 66, Hangzhou); H4: a passport
  // (nothing known); H5: a member saying female, the ID giving age 45 and Beijing.
  const h1 = await createMember(db, { sex: 1, birthday: `${year - 36}-01-01`, area_id: 330106 });
  const h5 = await createMember(db, { sex: 2, birthday: null, area_id: null });
  const h2Id = residentId('310104', `${year - 16}0101`, false);
  await createCardBinding(db, {
    card_id: cards.c1,
    member_id: h1,
    id_type: 1,
    id_no: residentId('310104', `${year - 70}0101`, false),
  });
  await createCardBinding(db, { card_id: cards.c2, id_type: 1, id_no: h2Id });
  await createCardBinding(db, { card_id: cards.c7, id_type: 1, id_no: h2Id });
  await createCardBinding(db, { card_id: cards.c6, id_type: 1, id_no: residentId('330106', `${year - 66}0101`, true) });
  await createCardBinding(db, { card_id: cards.c9, id_type: 3, id_no: 'E12345678' });
  await createCardBinding(db, {
    card_id: cards.c5,
    member_id: h5,
    id_type: 1,
    id_no: residentId('110105', `${year - 45}0101`, true),
  });

  // Check-ins (entries): c1 4 at SA1 + 1 at SB, c2 1 at SA1, c6 2 at SB, c9 7 at SB, c5 one revoked at SA1.
  const check = (
    cardId: number,
    modelId: number,
    sku: number,
    spu: number,
    time: string,
    consume = 1,
    deleted = false,
  ) =>
    db
      .insertInto('card_check')
      .values({
        card_id: cardId,
        card_model_id: modelId,
        sku_id: sku,
        resource_id: spu,
        check_time: at(time),
        check_date: time.slice(0, 10),
        consume_num: consume,
        is_deleted: deleted,
      })
      .execute();
  await check(cards.c1, m1, skuA1, spuA1, '2026-03-02 10:00:00');
  await check(cards.c1, m1, skuA1, spuA1, '2026-03-03 10:00:00');
  await check(cards.c1, m1, skuA1, spuA1, '2026-03-04 10:00:00', 2);
  await check(cards.c1, m1, skuB, spuB, '2026-03-05 10:00:00');
  await check(cards.c2, m1, skuA1, spuA1, '2026-03-02 11:00:00');
  await check(cards.c6, m2, skuB, spuB, '2026-03-02 12:00:00');
  await check(cards.c6, m2, skuB, spuB, '2026-03-03 12:00:00');
  for (let d = 6; d <= 12; d++) await check(cards.c9, m1, skuB, spuB, `2026-03-${String(d).padStart(2, '0')} 09:00:00`);
  await check(cards.c5, m1, skuA1, spuA1, '2026-04-11 09:00:00', 1, true);

  return {
    merchantA,
    merchantB,
    shopA1,
    shopA2,
    shopB1,
    spuA1,
    spuB,
    skuA1,
    skuB,
    m1,
    m2,
    m1Name,
    m2Name,
    cards,
    merchantAName,
  };
}

/** The rows of an exported workbook's first sheet, each as its cell values. */
export async function sheetRows(raw: Buffer): Promise<unknown[][]> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(raw as unknown as ArrayBuffer);
  const rows: unknown[][] = [];
  wb.worksheets[0].eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
  return rows;
}

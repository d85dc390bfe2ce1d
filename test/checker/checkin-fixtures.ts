import { sql } from 'kysely';
import { loadCheckerAccount } from '../../src/modules/checker/checker-login.repository.js';
import type { Db } from '../../src/platform/db/database.js';
import {
  createCard,
  createCardBinding,
  createCardModel,
  createCardModelRule,
  createChecker,
  createCheckerRelation,
  createMerchant,
  createShop,
  createSku,
  createSkuEntrance,
  createSpu,
  uniq,
} from '../helpers/factories.js';
import { issueFor, staffSession, type StaffSession } from '../helpers/staff.js';
import type { TestApp } from '../helpers/test-app.js';

/** A scenic spot with two gates, a card model admitted there and a verifier posted at it. */
export interface Spot {
  merchantId: number;
  shopId: number;
  spuId: number;
  skuId: number;
  gate1: number;
  gate2: number;
  modelId: number;
  modelName: string;
  checker: Verifier;
}

export interface Verifier {
  id: number;
  name: string;
  token: string;
}

export interface HeldCard {
  cardId: number;
  cardNumber: string;
  holderName: string;
  holderPhone: string;
  idNo: string;
}

export async function verifierAt(
  t: TestApp,
  o: { merchantId: number; shopId?: number | null; skuId?: number; entranceId?: number | null },
): Promise<Verifier> {
  const name = `Verifier ${uniq()}`;
  const c = await createChecker(t.db, { merchant_id: o.merchantId, shop_id: o.shopId ?? null, name });
  if (o.skuId)
    await createCheckerRelation(t.db, { checker_id: c.id, sku_id: o.skuId, entrance_id: o.entranceId ?? null });
  const account = await loadCheckerAccount(t.db, c.id);
  const issued = await issueFor(t, account!, 'app');
  return { id: c.id, name, token: issued.accessToken };
}

export async function createSpot(t: TestApp, o: { merchantId?: number; dailyLimit?: number } = {}): Promise<Spot> {
  const rows = await spotRows(t.db, o);
  const checker = await verifierAt(t, rows);
  return { ...rows, checker };
}

/**
 * The rows of a spot (createSpot) without its verifier, for tests that post and log one in another
 * way (test/cluster: over HTTP on a server process).
 */
export async function spotRows(
  db: Db,
  o: { merchantId?: number; dailyLimit?: number } = {},
): Promise<Omit<Spot, 'checker'>> {
  const merchantId = o.merchantId ?? (await createMerchant(db));
  const shopId = await createShop(db, { merchant_id: merchantId });
  const spuId = await createSpu(db, { shop_id: shopId, name: `Lake ${uniq()}` });
  const skuId = await createSku(db, { goods_id: spuId, sku_name: `Lake entry ${uniq()}` });
  const gate1 = await createSkuEntrance(db, { sku_id: skuId, entrance_name: 'North gate' });
  const gate2 = await createSkuEntrance(db, { sku_id: skuId, entrance_name: 'South gate' });
  const modelName = `Lake card ${uniq()}`;
  const modelId = await createCardModel(db, { name: modelName });
  await createCardModelRule(db, { card_model_id: modelId, resource_id: spuId, daily_check_limit: o.dailyLimit ?? 1 });
  return { merchantId, shopId, spuId, skuId, gate1, gate2, modelId, modelName };
}

/** A bound card of the model, active since yesterday, valid a year, unless told. */
export async function heldCard(
  db: Db,
  modelId: number,
  card: Parameters<typeof createCard>[1] = {},
  binding: { id_no?: string; id_type?: number; face_photo?: string } = {},
): Promise<HeldCard> {
  const cardNumber = uniq('86').slice(0, 20);
  const cardId = await createCard(db, { card_model_id: modelId, card_number: cardNumber, ...card });
  const holderName = `Holder ${uniq()}`;
  const holderPhone = `139${String(cardId % 100_000_000).padStart(8, '0')}`;
  const idNo = binding.id_no ?? uniq('3301').slice(0, 18).toUpperCase();
  await createCardBinding(db, {
    card_id: cardId,
    name: holderName,
    phone: holderPhone,
    id_no: idNo,
    id_type: binding.id_type ?? 1,
    face_photo: binding.face_photo ?? null,
  });
  return { cardId, cardNumber, holderName, holderPhone, idNo };
}

export const CHECK_IN = '/app-api/checker/addCheckerConsumeRecord';

export function checkIn(t: TestApp, token: string, body: Record<string, unknown>) {
  return t.post(CHECK_IN, body, token);
}

/** The service's wire format of a Date, in the test time zone. */
export function wire(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

export const HOUR = 3_600_000;

/** Yesterday at this time: one calendar day, under 72 hours ago whatever the time now (offline scans). */
export function yesterdayAt(hour: number, minute = 0): Date {
  const d = new Date();
  d.setDate(d.getDate() - 1);
  d.setHours(hour, minute, 0, 0);
  return d;
}

/** A held card active for three days already, so that yesterday's (offline) scans find it active. */
export function offlineCard(db: Db, modelId: number, card: Parameters<typeof createCard>[1] = {}): Promise<HeldCard> {
  return heldCard(db, modelId, { active_time: new Date(Date.now() - 3 * 24 * HOUR), ...card });
}

/**
 * Manage-channel readers ('checker:read') of each scope a page answers for: the spot's merchant, its
 * shop, another shop of the same merchant, and the platform.
 */
export async function scopeReaders(
  t: TestApp,
  spot: { merchantId: number; shopId: number },
): Promise<{ merchant: StaffSession; shop: StaffSession; otherShop: StaffSession; platform: StaffSession }> {
  const permissions = ['checker:read'];
  return {
    merchant: await staffSession(t, { kind: 'merchant', merchantId: spot.merchantId, permissions }),
    shop: await staffSession(t, { kind: 'shop', shopId: spot.shopId, permissions }),
    otherShop: await staffSession(t, {
      kind: 'shop',
      shopId: await createShop(t.db, { merchant_id: spot.merchantId }),
      permissions,
    }),
    platform: await staffSession(t, { kind: 'platform', permissions }),
  };
}

/** A spot's admissions counted by its capacity counter (`slot`: a slot's start minute, -1 the day); null when it keeps none. */
export async function admittedCount(db: Db, skuId: number, slot = -1): Promise<number | null> {
  const { rows } = await sql<{ admitted: number }>`select admitted from spot_admission_count
    where sku_id = ${skuId} and slot_minute = ${slot}`.execute(db);
  return rows[0]?.admitted ?? null;
}

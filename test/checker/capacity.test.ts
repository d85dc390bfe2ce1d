import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, createShop, createSku, createSpu } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { checkIn, createSpot, heldCard } from './checkin-fixtures.js';

/** setSpotCapacity and getSpotCapacity on the manage channel (docs/domain.md §4.1). */

const P = '/manage-api/checker';
const ALL = ['checker:read', 'checker:write'];

let t: TestApp;
let org: {
  merchantA: number;
  shopA1: number;
  shopA2: number;
  merchantB: number;
  skuA1: number;
  skuA2: number;
  skuB: number;
};
let platform: StaffSession;
let merchantA: StaffSession;
let shopA1: StaffSession;
let merchantB: StaffSession;

const skuIn = async (shopId: number) => createSku(t.db, { goods_id: await createSpu(t.db, { shop_id: shopId }) });

beforeAll(async () => {
  t = await createTestApp();
  const mA = await createMerchant(t.db);
  const sA1 = await createShop(t.db, { merchant_id: mA });
  const sA2 = await createShop(t.db, { merchant_id: mA });
  const mB = await createMerchant(t.db);
  const sB = await createShop(t.db, { merchant_id: mB });
  org = {
    merchantA: mA,
    shopA1: sA1,
    shopA2: sA2,
    merchantB: mB,
    skuA1: await skuIn(sA1),
    skuA2: await skuIn(sA2),
    skuB: await skuIn(sB),
  };
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  merchantA = await staffSession(t, { kind: 'merchant', merchantId: mA, permissions: ALL });
  shopA1 = await staffSession(t, { kind: 'shop', shopId: sA1, permissions: ALL });
  merchantB = await staffSession(t, { kind: 'merchant', merchantId: mB, permissions: ALL });
});
afterAll(() => t?.close());

const post = (path: string, body: unknown, who: StaffSession) => t.post(`${P}/${path}`, body, who.token);
const slot = (startTime: string, endTime: string, capacity: number) => ({ startTime, endTime, capacity });

describe('rejection matrix', () => {
  const validSet = () => ({ skuId: org.skuA1, dailyCapacity: 100 });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/setSpotCapacity`,
    permission: 'checker:write',
    validBody: validSet,
    badInputs: [
      { body: () => ({ dailyCapacity: 1 }), field: 'skuId' },
      { body: () => ({ skuId: 0, dailyCapacity: 1 }), field: 'skuId' },
      { body: () => ({ skuId: org.skuA1 }), field: 'dailyCapacity' },
      { body: () => ({ skuId: org.skuA1, dailyCapacity: 0 }), field: 'dailyCapacity' },
      { body: () => ({ skuId: org.skuA1, dailyCapacity: 1.5 }), field: 'dailyCapacity' },
      {
        body: () => ({ skuId: org.skuA1, dailyCapacity: null, slots: [slot('9:00', '10:00', 5)] }),
        field: 'startTime',
      },
      { body: () => ({ skuId: org.skuA1, dailyCapacity: null, slots: [slot('09:00', '24:01', 5)] }), field: 'endTime' },
      {
        body: () => ({ skuId: org.skuA1, dailyCapacity: null, slots: [slot('09:00', '10:00', 0)] }),
        field: 'capacity',
      },
      {
        body: () => ({ skuId: org.skuA1, dailyCapacity: null, slots: [slot('10:00', '09:00', 5)] }),
        field: 'slots',
        rule: /must end after it starts/,
      },
      {
        body: () => ({
          skuId: org.skuA1,
          dailyCapacity: null,
          slots: [slot('09:00', '11:00', 5), slot('10:30', '12:00', 5)],
        }),
        field: 'slots',
        rule: /09:00-11:00 and 10:30-12:00 overlap/,
      },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/getSpotCapacity`,
    permission: 'checker:read',
    validBody: () => ({ id: org.skuA1 }),
    badInputs: [
      { body: () => ({}), field: 'id' },
      { body: () => ({ id: 'x' }), field: 'id' },
    ],
  });
});

describe('scoping', () => {
  it("a foreign merchant's or another shop's spot → 403; an unknown one → 404", async () => {
    const body = (skuId: number) => ({ skuId, dailyCapacity: 10 });
    expect((await post('setSpotCapacity', body(org.skuA1), merchantB)).body.errcode).toBe(403);
    expect((await post('setSpotCapacity', body(org.skuA2), shopA1)).body.errcode).toBe(403);
    expect((await post('getSpotCapacity', { id: org.skuB }, merchantA)).body.errcode).toBe(403);
    expect((await post('getSpotCapacity', { id: org.skuA2 }, shopA1)).body.errcode).toBe(403);
    expect((await post('setSpotCapacity', body(2_000_000_000), platform)).body).toEqual({
      errcode: 404,
      errmsg: 'scenic spot (skuId) not found',
    });
    expect((await post('getSpotCapacity', { id: 2_000_000_000 }, platform)).body.errcode).toBe(404);
    const row = await t.db
      .selectFrom('spot_capacity')
      .select('sku_id')
      .where('sku_id', 'in', [org.skuA1, org.skuA2])
      .execute();
    expect(row).toEqual([]);
  });
});

describe('set and get', () => {
  it('sets, reads, changes and removes a capacity; each write is in the operation log', async () => {
    const none = await post('getSpotCapacity', { id: org.skuA1 }, shopA1);
    expect(none.body.data).toMatchObject({ skuId: org.skuA1, dailyCapacity: null, slots: [] });
    expect(typeof none.body.data.skuName).toBe('string');

    const slots = [slot('13:00', '24:00', 30), slot('08:00', '12:00', 50)];
    expect((await post('setSpotCapacity', { skuId: org.skuA1, dailyCapacity: 100, slots }, shopA1)).body).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
    const got = (await post('getSpotCapacity', { id: org.skuA1 }, merchantA)).body.data;
    expect(got).toMatchObject({ skuId: org.skuA1, dailyCapacity: 100, slots: [slots[1], slots[0]] });
    const row = await t.db
      .selectFrom('spot_capacity')
      .selectAll()
      .where('sku_id', '=', org.skuA1)
      .executeTakeFirstOrThrow();
    expect([Number(row.merchant_id), Number(row.shop_id)]).toEqual([org.merchantA, org.shopA1]);

    // slots only
    expect(
      (await post('setSpotCapacity', { skuId: org.skuA1, dailyCapacity: null, slots: [slots[0]] }, platform)).body
        .errcode,
    ).toBe(0);
    expect((await post('getSpotCapacity', { id: org.skuA1 }, platform)).body.data).toMatchObject({
      dailyCapacity: null,
      slots: [slots[0]],
    });
    // removed
    expect((await post('setSpotCapacity', { skuId: org.skuA1, dailyCapacity: null }, merchantA)).body.errcode).toBe(0);
    expect((await post('getSpotCapacity', { id: org.skuA1 }, platform)).body.data).toMatchObject({
      dailyCapacity: null,
      slots: [],
    });
    expect(
      await t.db.selectFrom('spot_capacity_slot').select('sku_id').where('sku_id', '=', org.skuA1).execute(),
    ).toEqual([]);

    const logs = await t.db
      .selectFrom('operate_log')
      .select(['action', 'success'])
      .where('module', '=', '景区承载量')
      .where('biz_id', '=', String(org.skuA1))
      .execute();
    expect(logs.filter((l) => l.success).map((l) => l.action)).toEqual(Array(3).fill('设置景区承载量'));
  });

  it('a capacity changed mid-day keeps counting exactly: lowered, raised, removed and set again', async () => {
    const spot = await createSpot(t);
    const staff = await staffSession(t, { kind: 'merchant', merchantId: spot.merchantId, permissions: ALL });
    const scan = async () => {
      const card = await heldCard(t.db, spot.modelId);
      return (await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: card.cardNumber })).body.errcode;
    };
    const set = async (dailyCapacity: number | null, slots: unknown[] = []) =>
      expect((await post('setSpotCapacity', { skuId: spot.skuId, dailyCapacity, slots }, staff)).body.errcode).toBe(0);
    await set(2);
    expect([await scan(), await scan(), await scan()]).toEqual([0, 0, 1_013_000_016]);
    await set(3);
    expect([await scan(), await scan()]).toEqual([0, 1_013_000_016]);
    // removed: admissions go on without counters, then a capacity set again counts them all
    await set(null);
    expect([await scan(), await scan()]).toEqual([0, 0]);
    await set(6, [{ startTime: '00:00', endTime: '24:00', capacity: 7 }]);
    // today's counters are counted again at once (the admissions board reads them)
    const today = await t.db
      .selectFrom('spot_admission_count')
      .select(['slot_minute', 'admitted'])
      .where('sku_id', '=', spot.skuId)
      .orderBy('slot_minute')
      .execute();
    expect(today).toEqual([
      { slot_minute: -1, admitted: 5 },
      { slot_minute: 0, admitted: 5 },
    ]);
    expect([await scan(), await scan()]).toEqual([0, 1_013_000_016]);
    await set(null, [{ startTime: '00:00', endTime: '24:00', capacity: 7 }]);
    expect([await scan(), await scan()]).toEqual([0, 1_013_000_017]);
  });
});

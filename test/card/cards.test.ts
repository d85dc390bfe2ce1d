import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, createMerchant, createShop } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { idCardCheckDigit } from '../../src/platform/id-document.js';
import { expireCards } from '../../src/modules/card/card-expiry.js';
import { FACE_JPEG } from '../platform/face-images.js';

const C = '/manage-api/card';
const ALL = ['cardModel:read', 'cardModel:write', 'card:read', 'card:write'];

let t: TestApp;
let platform: StaffSession;
let issuer: StaffSession;
let seller: StaffSession;
let sellerShop: StaffSession;
let otherShop: StaffSession;
let stranger: StaffSession;
let org: { issuer: number; seller: number; sellerShop: number; sellerShop2: number; model: number };

/** A valid 18-character ID number born on the given day. */
const idNumber = (birth = '19900307', serial = '123') => {
  const first = `330106${birth}${serial}`;
  return first + idCardCheckDigit(first);
};

beforeAll(async () => {
  t = await createTestApp();
  const issuerId = await createMerchant(t.db);
  const sellerId = await createMerchant(t.db);
  const sellerShopId = await createShop(t.db, { merchant_id: sellerId });
  const sellerShop2 = await createShop(t.db, { merchant_id: sellerId });
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  issuer = await staffSession(t, { kind: 'merchant', merchantId: issuerId, permissions: ALL });
  seller = await staffSession(t, { kind: 'merchant', merchantId: sellerId, permissions: ALL });
  sellerShop = await staffSession(t, { kind: 'shop', shopId: sellerShopId, permissions: ALL });
  otherShop = await staffSession(t, { kind: 'shop', shopId: sellerShop2, permissions: ALL });
  stranger = await staffSession(t, { kind: 'merchant', permissions: ALL });
  const model = (
    await t.post(
      '/manage-api/cardModel/addCardModel',
      { name: 'City pass', price: 19800, validityMonths: 12 },
      issuer.token,
    )
  ).body.data;
  org = { issuer: issuerId, seller: sellerId, sellerShop: sellerShopId, sellerShop2, model: model.id };
});
afterAll(() => t?.close());

/** Fresh cards of the issuer's model held by the seller's shop (handing cards to another merchant is the platform's). */
async function cards(n = 1, body: Record<string, unknown> = {}): Promise<string[]> {
  const batch = await t.post(
    `${C}/generateCardBatch`,
    { cardModelId: org.model, count: n, medium: 1, merchantId: org.seller, shopId: org.sellerShop, ...body },
    platform.token,
  );
  expect(batch.body.errcode, batch.body.errmsg).toBe(0);
  const page = await t.post(`${C}/queryCardPage`, { batchId: batch.body.data.id, pageSize: 200 }, platform.token);
  expect(page.body.data.total).toBe(n);
  return [...page.body.data.list]
    .sort((a: { id: number }, b: { id: number }) => a.id - b.id)
    .map((c: { cardNumber: string }) => c.cardNumber);
}

async function activated(body: Record<string, unknown> = {}): Promise<string> {
  const [cardNumber] = await cards();
  const res = await t.post(`${C}/activateCard`, { cardNumber, channel: 1, ...body }, sellerShop.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return cardNumber;
}

const holder = (o: Record<string, unknown> = {}) => ({
  name: 'Wang Fang',
  phone: '13912340000',
  idType: 1,
  idNo: idNumber(),
  ...o,
});

async function bound(o: Record<string, unknown> = {}): Promise<string> {
  const cardNumber = await activated();
  const res = await t.post(`${C}/bindCard`, { cardNumber, ...holder(o) }, sellerShop.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return cardNumber;
}

const get = async (cardNumber: string, who = platform) =>
  (await t.post(`${C}/getCard`, { cardNumber }, who.token)).body;

describe('rejection matrix', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${C}/activateCard`,
    permission: 'card:write',
    validBody: () => ({ id: 1, channel: 1 }),
    badInputs: [
      { body: () => ({ id: 1 }), field: 'channel' },
      { body: () => ({ id: 1, channel: 9 }), field: 'channel' },
      { body: () => ({ channel: 1 }), field: 'id or cardNumber' },
      { body: () => ({ id: 1, channel: 1, activeTime: 'yesterday' }), field: 'activeTime' },
      {
        body: () => ({ id: 1, channel: 1, activeTime: '2026-02-30 10:00:00' }),
        field: 'activeTime',
        rule: /not a real date/,
      },
      { body: () => ({ cardNumber: 'has space', channel: 1 }), field: 'cardNumber' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${C}/bindCard`,
    permission: 'card:write',
    validBody: () => ({ id: 1, ...holder() }),
    badInputs: [
      { body: () => ({ id: 1, ...holder({ name: undefined }) }), field: 'name' },
      { body: () => ({ id: 1, ...holder({ phone: '1234' }) }), field: 'phone' },
      { body: () => ({ id: 1, ...holder({ idType: 10 }) }), field: 'idType' },
      { body: () => ({ id: 1, ...holder({ idNo: undefined }) }), field: 'idNo' },
    ],
  });
  for (const op of ['unbindCard', 'disableCard', 'enableCard']) {
    itRefusesWhatStaffOperationsRefuse(() => t, {
      path: `${C}/${op}`,
      permission: 'card:write',
      validBody: () => ({ id: 1 }),
      badInputs: [{ body: () => ({ reason: 'x' }), field: 'id or cardNumber' }],
    });
  }
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${C}/getCard`,
    permission: 'card:read',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({ id: 0 }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${C}/queryCardPage`,
    permission: 'card:read',
    validBody: () => ({}),
    badInputs: [
      { body: () => ({ status: 5 }), field: 'status' },
      {
        body: () => ({ activeTimeRange: ['2026-05-01', '2026-04-01'] }),
        field: 'activeTimeRange',
        rule: /after the end/,
      },
    ],
  });
});

describe('activation', () => {
  it("activates a card: channel, time, expiry after the model's validity, seller shop, sales account", async () => {
    const [cardNumber] = await cards();
    const res = await t.post(
      `${C}/activateCard`,
      { cardNumber, channel: 6, activeTime: '2026-01-31 10:00:00', isDonation: true, orderNo: 'ORD-1' },
      sellerShop.token,
    );
    expect(res.body.data).toMatchObject({
      cardNumber,
      status: 1,
      activated: true,
      channel: '6',
      activeTime: '2026-01-31 10:00:00',
      expireTime: '2027-01-31 10:00:00',
      merchantId: org.seller,
      shopId: org.sellerShop,
      activeBy: sellerShop.userId,
      isDonation: true,
      orderNo: 'ORD-1',
      holder: null,
    });
    // An explicit expiry, and a month end: Jan 31 + 1 month is the last day of February (as PostgreSQL counts months).
    const short = (
      await t.post(
        '/manage-api/cardModel/addCardModel',
        { name: 'Monthly', price: 100, validityMonths: 1 },
        issuer.token,
      )
    ).body.data;
    const [monthly] = await cards(1, { cardModelId: short.id });
    const m = await t.post(
      `${C}/activateCard`,
      { cardNumber: monthly, channel: 1, activeTime: '2026-01-31 10:00:00' },
      seller.token,
    );
    expect(m.body.data.expireTime).toBe('2026-02-28 10:00:00');
    const [given] = await cards();
    const g = await t.post(
      `${C}/activateCard`,
      { cardNumber: given, channel: 1, activeTime: '2026-03-01', expireTime: '2026-12-31' },
      seller.token,
    );
    expect(g.body.data).toMatchObject({ activeTime: '2026-03-01 00:00:00', expireTime: '2026-12-31 23:59:59' });
  });

  it('refuses a second activation, a disabled card, a future time, an expiry before the start, and a foreign seller', async () => {
    const cardNumber = await activated();
    expect((await t.post(`${C}/activateCard`, { cardNumber, channel: 1 }, seller.token)).body).toEqual({
      errcode: 1_023_000_002,
      errmsg: `card ${cardNumber} is already activated`,
    });
    const [fresh, other] = await cards(2);
    const future = new Date(Date.now() + 86_400_000);
    const text = `${future.getFullYear()}-${String(future.getMonth() + 1).padStart(2, '0')}-${String(future.getDate()).padStart(2, '0')} 12:00:00`;
    expect(
      (await t.post(`${C}/activateCard`, { cardNumber: fresh, channel: 1, activeTime: text }, seller.token)).body
        .errmsg,
    ).toBe('activeTime is invalid: it must not be in the future');
    expect(
      (
        await t.post(
          `${C}/activateCard`,
          { cardNumber: fresh, channel: 1, activeTime: '2026-03-01', expireTime: '2026-02-01' },
          seller.token,
        )
      ).body.errcode,
    ).toBe(400);
    expect(
      (await t.post(`${C}/activateCard`, { cardNumber: fresh, channel: 1, shopId: org.sellerShop2 }, sellerShop.token))
        .body.errcode,
    ).toBe(403);
    expect(
      (await t.post(`${C}/activateCard`, { cardNumber: fresh, channel: 1, merchantId: org.issuer }, seller.token)).body,
    ).toEqual({ errcode: 403, errmsg: 'only platform users may move a card to another merchant' });
    expect(
      (await t.post(`${C}/activateCard`, { cardNumber: fresh, channel: 1, activeBy: 999_999_999 }, seller.token)).body
        .errcode,
    ).toBe(404);
    expect(
      (await t.post(`${C}/disableCard`, { cardNumber: other, reason: 'lost in the post' }, seller.token)).body.errcode,
    ).toBe(0);
    expect((await t.post(`${C}/activateCard`, { cardNumber: other, channel: 1 }, seller.token)).body.errcode).toBe(
      1_023_000_003,
    );
    // Moved to another shop of the seller by its merchant user.
    const moved = await t.post(
      `${C}/activateCard`,
      { cardNumber: fresh, channel: 2, shopId: org.sellerShop2 },
      seller.token,
    );
    expect(moved.body.data).toMatchObject({ merchantId: org.seller, shopId: org.sellerShop2 });
  });

  it('lets exactly one of concurrent activations through', async () => {
    const [cardNumber] = await cards();
    const answers = await Promise.all(
      [1, 2, 3].map(() => t.post(`${C}/activateCard`, { cardNumber, channel: 1 }, seller.token)),
    );
    expect(answers.map((a) => a.body.errcode).sort()).toEqual([0, 1_023_000_002, 1_023_000_002]);
  });
});

describe('binding', () => {
  it('binds an activated card to a holder with a checked ID number, linked to the member with that mobile', async () => {
    const phone = `139${String(Date.now()).slice(-8)}`;
    const memberId = await createMember(t.db, { mobile: phone });
    const cardNumber = await activated();
    const res = await t.post(
      `${C}/bindCard`,
      { cardNumber, name: ' Li Lei ', phone, idType: 1, idNo: idNumber('19851111', '452').toLowerCase() },
      sellerShop.token,
    );
    expect(res.body.data).toMatchObject({
      status: 2,
      holder: { name: 'Li Lei', phone, idType: '1', idNo: idNumber('19851111', '452'), memberId, facePhoto: null },
    });
    expect(res.body.data.holder.boundTime).toMatch(/^\d{4}-/);
  });

  it('refuses a wrong ID number: check digit, birth date, the form of other documents', async () => {
    const cardNumber = await activated();
    const good = idNumber();
    const wrongDigit = good.slice(0, 17) + (good[17] === '0' ? '1' : '0');
    const bind = (o: Record<string, unknown>) => t.post(`${C}/bindCard`, { cardNumber, ...holder(o) }, seller.token);
    expect((await bind({ idNo: wrongDigit })).body).toEqual({
      errcode: 400,
      errmsg: 'idNo is invalid: it has a wrong check digit',
    });
    const feb30 = `33010619900230123`;
    expect((await bind({ idNo: feb30 + idCardCheckDigit(feb30) })).body.errmsg).toBe(
      'idNo is invalid: it does not carry a real birth date',
    );
    expect((await bind({ idNo: '12345' })).body.errmsg).toMatch(/^idNo is invalid: it must be 18 characters/);
    expect((await bind({ idType: 2, idNo: 'E1234' })).body.errcode).toBe(0);
    const passport = await activated();
    expect(
      (await t.post(`${C}/bindCard`, { cardNumber: passport, ...holder({ idType: 3, idNo: 'X123' }) }, seller.token))
        .body.errmsg,
    ).toMatch(/^idNo is invalid: it must be H or M/);
  });

  it("enrols the holder's face so a face search finds the ID number", async () => {
    const cardNumber = await activated();
    const photo = `data:image/jpeg;base64,${FACE_JPEG.toString('base64')}`;
    const idNo = idNumber('19700101', '888');
    const res = await t.post(`${C}/bindCard`, { cardNumber, ...holder({ idNo, facePhoto: photo }) }, seller.token);
    expect(res.body.errcode, res.body.errmsg).toBe(0);
    // only the database shows the face library's people (searched by the face service, not an operation)
    const enrolled = await t.db.selectFrom('face_person').select('person_id').where('person_id', '=', idNo).execute();
    expect(enrolled).toHaveLength(1);
  });

  it('refuses an unactivated, an already bound, a disabled and an expired card', async () => {
    const [fresh] = await cards();
    expect((await t.post(`${C}/bindCard`, { cardNumber: fresh, ...holder() }, seller.token)).body.errcode).toBe(
      1_023_000_001,
    );
    const b = await bound();
    expect((await t.post(`${C}/bindCard`, { cardNumber: b, ...holder() }, seller.token)).body).toEqual({
      errcode: 1_023_000_005,
      errmsg: `card ${b} is already bound to a holder: unbind it first`,
    });
    const d = await activated();
    await t.post(`${C}/disableCard`, { cardNumber: d }, seller.token);
    expect((await t.post(`${C}/bindCard`, { cardNumber: d, ...holder() }, seller.token)).body.errcode).toBe(
      1_023_000_003,
    );
    const e = await activated({ activeTime: '2024-01-01 00:00:00', expireTime: '2024-12-31 23:59:59' });
    expect((await t.post(`${C}/bindCard`, { cardNumber: e, ...holder() }, seller.token)).body.errcode).toBe(
      1_023_000_004,
    );
  });

  it('lets exactly one of concurrent bindings through', async () => {
    const cardNumber = await activated();
    const answers = await Promise.all(
      [1, 2, 3].map((i) => t.post(`${C}/bindCard`, { cardNumber, ...holder({ name: `Holder ${i}` }) }, seller.token)),
    );
    expect(answers.map((a) => a.body.errcode).sort()).toEqual([0, 1_023_000_005, 1_023_000_005]);
  });

  it('unbinds a card (the binding row stays) and binds it to someone else', async () => {
    const cardNumber = await bound();
    expect((await t.post(`${C}/unbindCard`, { cardNumber, reason: 'sold back' }, seller.token)).body).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
    const after = (await get(cardNumber)).data;
    expect(after).toMatchObject({ status: 1, holder: null, statusReason: 'sold back' });
    expect((await t.post(`${C}/unbindCard`, { cardNumber }, seller.token)).body.errcode).toBe(1_023_000_006);
    expect(
      (await t.post(`${C}/bindCard`, { cardNumber, ...holder({ name: 'Second holder' }) }, seller.token)).body.data
        .holder.name,
    ).toBe('Second holder');
    // only the database shows an ended binding, kept for history
    const rows = await t.db
      .selectFrom('card_binding')
      .select(['name', 'is_deleted'])
      .where('card_id', '=', after.id)
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { name: 'Wang Fang', is_deleted: true },
      { name: 'Second holder', is_deleted: false },
    ]);
  });
});

describe('disable, enable, expiry', () => {
  it('disables and enables a card back to what it was', async () => {
    const cardNumber = await bound();
    expect(
      (await t.post(`${C}/disableCard`, { cardNumber, reason: 'reported lost' }, sellerShop.token)).body.errcode,
    ).toBe(0);
    expect((await get(cardNumber)).data).toMatchObject({ status: 3, statusReason: 'reported lost' });
    expect((await t.post(`${C}/disableCard`, { cardNumber }, sellerShop.token)).body.errcode).toBe(1_023_000_003);
    expect((await t.post(`${C}/enableCard`, { cardNumber }, sellerShop.token)).body.errcode).toBe(0);
    expect((await get(cardNumber)).data.status).toBe(2);
    expect((await t.post(`${C}/enableCard`, { cardNumber }, sellerShop.token)).body).toEqual({
      errcode: 409,
      errmsg: `card ${cardNumber} is not disabled`,
    });
  });

  it('reads a card past its expiry as expired at once, and the expiry job stores it', async () => {
    const cardNumber = await bound();
    const id = (await get(cardNumber)).data.id;
    // Written directly: only time passing takes a bound card past its expiry.
    await t.db
      .updateTable('card')
      .set({ active_time: new Date(Date.now() - 86_400_000), expire_time: new Date(Date.now() - 1000) })
      .where('id', '=', id)
      .execute();
    expect((await get(cardNumber)).data.status).toBe(4);
    // only the database shows the stored status (the API reads an expired card as 4 at once)
    expect((await t.db.selectFrom('card').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status).toBe(
      2,
    );
    const page = await t.post(`${C}/queryCardPage`, { cardNumber, status: 4 }, platform.token);
    expect(page.body.data.total).toBe(1);
    expect(await expireCards(t.db)).toBeGreaterThanOrEqual(1);
    expect((await t.db.selectFrom('card').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status).toBe(
      4,
    );
    expect(await expireCards(t.db)).toBe(0);
    // Two runs at once (two instances) share the work and neither fails.
    // every card of the database the job may store, all taken past their expiry directly (as above)
    const ids = await t.db
      .selectFrom('card')
      .select('id')
      .where('batch_id', 'is not', null)
      .where('active_time', 'is not', null)
      .where('status', 'in', [1, 2])
      .execute();
    await t.db
      .updateTable('card')
      .set({ active_time: new Date(Date.now() - 86_400_000), expire_time: new Date(Date.now() - 1000) })
      .where(
        'id',
        'in',
        ids.map((r) => r.id),
      )
      .execute();
    const [a, b] = await Promise.all([expireCards(t.db), expireCards(t.db)]);
    expect(a + b).toBe(ids.length);
  });
});

describe('reading and scoping', () => {
  it('pages cards with filters: model, number prefix, holder phone, ID number, batch, activation', async () => {
    const phone = `137${String(Date.now()).slice(-8)}`;
    const idNo = idNumber('19991231', '777');
    const b = await bound({ phone, idNo });
    const byPhone = await t.post(`${C}/queryCardPage`, { holderPhone: phone }, seller.token);
    expect(byPhone.body.data).toEqual({
      list: [expect.objectContaining({ cardNumber: b, holder: expect.objectContaining({ phone }) })],
      total: 1,
    });
    expect((await t.post(`${C}/queryCardPage`, { idNo: idNo.toLowerCase() }, seller.token)).body.data.total).toBe(1);
    expect(
      (
        await t.post(`${C}/queryCardPage`, { cardNumber: b.slice(0, 12), cardModelId: org.model }, seller.token)
      ).body.data.list.map((c: { cardNumber: string }) => c.cardNumber),
    ).toContain(b);
    const batchId = (await get(b)).data.batchId;
    expect((await t.post(`${C}/queryCardPage`, { batchId, activated: true }, seller.token)).body.data.total).toBe(1);
    expect((await t.post(`${C}/queryCardPage`, { batchId, activated: false }, seller.token)).body.data.total).toBe(0);
    const today = new Date();
    const day = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`;
    expect(
      (await t.post(`${C}/queryCardPage`, { batchId, activeTimeRange: [day, day] }, seller.token)).body.data.total,
    ).toBe(1);
    expect(
      (await t.post(`${C}/queryCardPage`, { batchId, activeTimeRange: ['2020-01-01', '2020-01-02'] }, seller.token))
        .body.data.total,
    ).toBe(0);
  });

  it("shows a card to the platform, its model's merchant, its seller and the seller's shop only", async () => {
    const cardNumber = await bound();
    for (const who of [platform, issuer, seller, sellerShop]) expect((await get(cardNumber, who)).errcode).toBe(0);
    for (const who of [otherShop, stranger])
      expect(await get(cardNumber, who)).toEqual({
        errcode: 403,
        errmsg: 'the card belongs to another merchant or shop',
      });
    expect((await t.post(`${C}/disableCard`, { cardNumber }, stranger.token)).body.errcode).toBe(403);
    expect((await t.post(`${C}/unbindCard`, { cardNumber }, otherShop.token)).body.errcode).toBe(403);
    const tag = (await get(cardNumber)).data.batchId;
    expect((await t.post(`${C}/queryCardPage`, { batchId: tag }, stranger.token)).body.data.total).toBe(0);
    expect((await t.post(`${C}/queryCardPage`, { batchId: tag }, otherShop.token)).body.data.total).toBe(0);
    expect(
      (await t.post(`${C}/getCard`, { cardNumber: `9${Date.now()}${Math.floor(Math.random() * 1e6)}` }, platform.token))
        .body.errcode,
    ).toBe(404);
  });

  it('records every change in the operation log', async () => {
    const cardNumber = await bound();
    const id = (await get(cardNumber)).data.id;
    await t.post(`${C}/disableCard`, { cardNumber }, seller.token);
    await t.post(`${C}/enableCard`, { id }, seller.token);
    await t.post(`${C}/unbindCard`, { id }, seller.token);
    // only the database shows the operation log
    const rows = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'success'])
      .where('biz_id', '=', String(id))
      .where('path', 'like', `${C}/%`)
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.module, r.action, r.success])).toEqual([
      ['卡片管理', '激活卡', true],
      ['卡片管理', '绑定卡', true],
      ['卡片管理', '停用卡', true],
      ['卡片管理', '启用卡', true],
      ['卡片管理', '解绑卡', true],
    ]);
  });
});

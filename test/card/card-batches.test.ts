import ExcelJS from 'exceljs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, createShop } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { isValidCardNumber, luhnCheckDigit, randomCardNumbers } from '../../src/modules/card/card-number.js';

const C = '/manage-api/card';
const ALL = ['cardModel:read', 'cardModel:write', 'card:read', 'card:write'];

let t: TestApp;
let platform: StaffSession;
let issuer: StaffSession;
let bank: StaffSession;
let bankBranch: StaffSession;
let org: { issuer: number; bank: number; bankShop: number; model: number; platformModel: number };

beforeAll(async () => {
  t = await createTestApp();
  const issuerId = await createMerchant(t.db);
  const bankId = await createMerchant(t.db);
  const bankShop = await createShop(t.db, { merchant_id: bankId });
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  issuer = await staffSession(t, { kind: 'merchant', merchantId: issuerId, permissions: ALL });
  bank = await staffSession(t, { kind: 'merchant', merchantId: bankId, permissions: ALL });
  bankBranch = await staffSession(t, { kind: 'shop', shopId: bankShop, permissions: ALL });
  const model = (await t.post('/manage-api/cardModel/addCardModel', { name: 'Issuer pass', price: 9800 }, issuer.token))
    .body.data;
  const platformModel = (
    await t.post('/manage-api/cardModel/addCardModel', { name: 'Platform pass', price: 19800 }, platform.token)
  ).body.data;
  org = { issuer: issuerId, bank: bankId, bankShop, model: model.id, platformModel: platformModel.id };
});
afterAll(() => t?.close());

async function generate(who: StaffSession, body: Record<string, unknown>) {
  const res = await t.post(
    `${C}/generateCardBatch`,
    { cardModelId: org.model, count: 10, medium: 1, ...body },
    who.token,
  );
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}

describe('card numbers', () => {
  it('are 16 digits with a Luhn check digit, random and distinct', () => {
    expect(luhnCheckDigit('7992739871')).toBe('3');
    const numbers = randomCardNumbers('8001', 5000);
    expect(new Set(numbers).size).toBe(5000);
    expect(numbers.every((n) => /^8001\d{12}$/.test(n) && isValidCardNumber(n))).toBe(true);
    // One wrong digit breaks the check.
    const n = numbers[0];
    const broken = n.slice(0, 6) + String((Number(n[6]) + 1) % 10) + n.slice(7);
    expect(isValidCardNumber(broken)).toBe(false);
  });
});

describe('rejection matrix', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${C}/generateCardBatch`,
    permission: 'card:write',
    validBody: () => ({ cardModelId: org.model, count: 1, medium: 2 }),
    badInputs: [
      { body: () => ({ count: 1, medium: 2 }), field: 'cardModelId' },
      { body: () => ({ cardModelId: org.model, medium: 2 }), field: 'count' },
      { body: () => ({ cardModelId: org.model, count: 0, medium: 2 }), field: 'count' },
      {
        body: () => ({ cardModelId: org.model, count: 100_001, medium: 2 }),
        field: 'count',
        rule: /between 1 and 100000/,
      },
      { body: () => ({ cardModelId: org.model, count: 1 }), field: 'medium' },
      { body: () => ({ cardModelId: org.model, count: 1, medium: 3 }), field: 'medium' },
      { body: () => ({ cardModelId: org.model, count: 1, medium: 1, prefix: '1234567' }), field: 'prefix' },
      { body: () => ({ cardModelId: org.model, count: 1, medium: 1, prefix: '12a' }), field: 'prefix' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${C}/exportCardBatch`,
    permission: 'card:read',
    validBody: () => ({ batchId: 1 }),
    badInputs: [{ body: () => ({}), field: 'batchId' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${C}/getCardBatch`,
    permission: 'card:read',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${C}/queryCardBatchPage`,
    permission: 'card:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ medium: 0 }), field: 'medium' }],
  });
});

describe('card batches', () => {
  it('generates a batch of unique, check-digited numbers held by the seller it names, and exports them as xlsx', async () => {
    const batch = await generate(platform, {
      count: 250,
      medium: 2,
      prefix: '66',
      merchantId: org.bank,
      shopId: org.bankShop,
      remark: 'for the bank',
    });
    expect(batch).toMatchObject({
      batchNo: expect.stringMatching(/^CB\d{8}\d{6,}$/),
      cardModelId: org.model,
      medium: 2,
      cardCount: 250,
      prefix: '66',
      merchantId: org.bank,
      shopId: org.bankShop,
      remark: 'for the bank',
    });
    const cards = await t.db
      .selectFrom('card')
      .select(['card_number', 'status', 'medium', 'merchant_id', 'shop_id', 'active_time', 'card_model_id'])
      .where('batch_id', '=', batch.id)
      .orderBy('id')
      .execute();
    expect(cards).toHaveLength(250);
    expect(cards.every((c) => /^66\d{14}$/.test(c.card_number) && isValidCardNumber(c.card_number))).toBe(true);
    expect(
      cards.every(
        (c) =>
          c.status === 1 &&
          c.medium === 2 &&
          c.merchant_id === org.bank &&
          c.shop_id === org.bankShop &&
          c.active_time === null &&
          c.card_model_id === org.model,
      ),
    ).toBe(true);

    const res = await t.app.inject({
      method: 'GET',
      url: `${C}/exportCardBatch?batchId=${batch.id}`,
      headers: { authorization: `Bearer ${bankBranch.token}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const ws = wb.worksheets[0];
    expect(ws.rowCount).toBe(251);
    expect(ws.getRow(1).values).toEqual([undefined, '卡号', '卡型', '介质', '批次号', '状态', '激活时间']);
    expect(ws.getRow(2).getCell(1).value).toBe(cards[0].card_number);
    expect(ws.getRow(251).getCell(1).value).toBe(cards[249].card_number);
    expect(ws.getRow(2).getCell(3).value).toBe('电子卡');
    const post = await t.app.inject({
      method: 'POST',
      url: `${C}/exportCardBatch`,
      payload: { batchId: batch.id },
      headers: { authorization: `Bearer ${issuer.token}` },
    });
    expect(post.statusCode).toBe(200);
  });

  it("defaults the prefix from the model and the holder to the model's merchant", async () => {
    const batch = await generate(issuer, {});
    expect(batch).toMatchObject({
      prefix: `8${String(org.model % 1000).padStart(3, '0')}`,
      merchantId: org.issuer,
      shopId: null,
      cardCount: 10,
    });
    const platformBatch = await generate(platform, { cardModelId: org.platformModel });
    expect(platformBatch.merchantId).toBeNull();
  });

  it('generates 100 000 cards in one call', async () => {
    const batch = await generate(platform, { cardModelId: org.platformModel, count: 100_000, medium: 1, prefix: '5' });
    const r = await t.db
      .selectFrom('card')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.count<number>('card_number').distinct().as('d')])
      .where('batch_id', '=', batch.id)
      .executeTakeFirstOrThrow();
    expect([Number(r.n), Number(r.d)]).toEqual([100_000, 100_000]);
  });

  it('leaves nothing behind when the batch fails part-way', async () => {
    await sql`create function fail_on_prefix() returns trigger language plpgsql as $$
      begin if new.card_number like '4444%' then raise exception 'injected failure'; end if; return new; end $$`.execute(
      t.db,
    );
    await sql`create trigger fail_on_prefix before insert on card for each row execute function fail_on_prefix()`.execute(
      t.db,
    );
    try {
      const before = await t.db
        .selectFrom('card_batch')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      const res = await t.post(
        `${C}/generateCardBatch`,
        { cardModelId: org.model, count: 500, medium: 1, prefix: '4444' },
        issuer.token,
      );
      expect(res.body.errcode).toBe(500);
      const after = await t.db
        .selectFrom('card_batch')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(after.n)).toBe(Number(before.n));
      const cards = await t.db.selectFrom('card').select('id').where('card_number', 'like', '4444%').execute();
      expect(cards).toEqual([]);
    } finally {
      await sql`drop trigger fail_on_prefix on card`.execute(t.db);
      await sql`drop function fail_on_prefix()`.execute(t.db);
    }
  });

  it('refuses a disabled model, an unknown or disabled seller, and models the caller may not change', async () => {
    const off = (await t.post('/manage-api/cardModel/addCardModel', { name: 'Off', price: 1 }, issuer.token)).body.data;
    await t.post('/manage-api/cardModel/updateCardModelStatus', { id: off.id, status: 0 }, issuer.token);
    const disabledModel = await t.post(
      `${C}/generateCardBatch`,
      { cardModelId: off.id, count: 1, medium: 1 },
      issuer.token,
    );
    expect(disabledModel.body).toEqual({
      errcode: 1_023_000_007,
      errmsg: 'card model "Off" is disabled: enable it first',
    });
    expect(
      (
        await t.post(
          `${C}/generateCardBatch`,
          { cardModelId: org.model, count: 1, medium: 1, merchantId: 999_999_999 },
          platform.token,
        )
      ).body.errcode,
    ).toBe(404);
    const offMerchant = await createMerchant(t.db, { status: 0 });
    expect(
      (
        await t.post(
          `${C}/generateCardBatch`,
          { cardModelId: org.model, count: 1, medium: 1, merchantId: offMerchant },
          platform.token,
        )
      ).body.errcode,
    ).toBe(1_022_000_001);
    expect(
      (
        await t.post(
          `${C}/generateCardBatch`,
          { cardModelId: org.model, count: 1, medium: 1, shopId: org.bankShop, merchantId: org.issuer },
          issuer.token,
        )
      ).body.errcode,
    ).toBe(404);
    expect(
      (await t.post(`${C}/generateCardBatch`, { cardModelId: org.model, count: 1, medium: 1 }, bank.token)).body
        .errcode,
    ).toBe(403);
  });

  it("shows a batch to the platform, its model's merchant and the seller holding it", async () => {
    const batch = await generate(platform, { merchantId: org.bank });
    const other = await generate(issuer, {});
    expect((await t.post(`${C}/getCardBatch`, { id: batch.id }, bank.token)).body.data.id).toBe(batch.id);
    expect((await t.post(`${C}/getCardBatch`, { id: other.id }, bank.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the card batch belongs to another merchant or shop',
    });
    expect((await t.post(`${C}/getCardBatch`, { id: batch.id }, bankBranch.token)).body.errcode).toBe(403);
    const exp = await t.post(`${C}/exportCardBatch`, { batchId: other.id }, bank.token);
    expect(exp.body.errcode).toBe(403);
    const ids = async (who: StaffSession) =>
      (
        (await t.post(`${C}/queryCardBatchPage`, { cardModelId: org.model, pageSize: 200 }, who.token)).body.data
          .list as Array<{ id: number }>
      ).map((b) => b.id);
    expect(await ids(bank)).toContain(batch.id);
    expect(await ids(bank)).not.toContain(other.id);
    expect(await ids(issuer)).toEqual(expect.arrayContaining([batch.id, other.id]));
  });

  it('lets a merchant user hold a batch itself or in its own shops, never with another merchant or its shops (403, nothing written)', async () => {
    const ownShop = await createShop(t.db, { merchant_id: org.issuer });
    expect(await generate(issuer, { shopId: ownShop })).toMatchObject({ merchantId: org.issuer, shopId: ownShop });
    expect(await generate(issuer, { merchantId: org.issuer, shopId: ownShop })).toMatchObject({
      merchantId: org.issuer,
      shopId: ownShop,
    });
    const count = async (table: 'card_batch' | 'card') =>
      Number(
        (
          await t.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = [await count('card_batch'), await count('card')];
    const refused = { errcode: 403, errmsg: 'only platform users may move a card to another merchant' };
    for (const holder of [
      { merchantId: org.bank },
      { shopId: org.bankShop },
      { merchantId: org.bank, shopId: org.bankShop },
      { merchantId: 999_999_999 },
    ]) {
      const res = await t.post(
        `${C}/generateCardBatch`,
        { cardModelId: org.model, count: 3, medium: 2, ...holder },
        issuer.token,
      );
      expect(res.body, JSON.stringify(holder)).toEqual(refused);
    }
    expect([await count('card_batch'), await count('card')]).toEqual(before);
    // the platform may hand its batches to any merchant's shop
    expect(await generate(platform, { cardModelId: org.platformModel, shopId: org.bankShop, count: 1 })).toMatchObject({
      merchantId: org.bank,
      shopId: org.bankShop,
    });
  });

  it('records generation and export in the operation log', async () => {
    const batch = await generate(issuer, { count: 3 });
    await t.post(`${C}/exportCardBatch`, { batchId: batch.id }, issuer.token);
    const rows = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'success', 'biz_id'])
      .where('account_id', '=', issuer.userId)
      .where('path', 'in', [`${C}/generateCardBatch`, `${C}/exportCardBatch`])
      .orderBy('id', 'desc')
      .limit(2)
      .execute();
    expect(rows.map((r) => [r.module, r.action, r.success])).toEqual([
      ['卡片管理', '导出卡号', true],
      ['卡片管理', '生成卡号', true],
    ]);
    expect(rows[1].biz_id).toBe(String(batch.id));
  });
});

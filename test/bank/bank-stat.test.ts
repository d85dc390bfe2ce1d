import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import {
  activate,
  bankToken,
  createBankChannel,
  createBankUser,
  newIdNumber,
  newPhone,
  P,
  recordingSms,
  type BankChannel,
  type Recorder,
} from './bank-fixtures.js';

/** bankOperatorList, bankStat, getActivationDetailList and exportBankStatDetail: counts, filters, scoping, masking. */

let t: TestApp;
let rec: Recorder;
/** bank A: channel 1 with operators A1 (two bound activations via the API, one confirming, one yesterday) and A2; channel 2 with A3 */
let a: BankChannel;
let a2: BankChannel;
let b: BankChannel;
let manager: string;
let plainManager: string;
let tellerA1: string;
let tellerA2: string;
let activated: Array<{ phone: string; idNo: string; cardNumber: string; orderNo: string; name: string }>;
const extraPhones = { confirming: newPhone(), yesterday: newPhone(), a2: newPhone() };
let yesterdayId: number;

const mask = (id: string) => `${id.slice(0, 6)}********${id.slice(14)}`;

async function insertRecord(
  c: BankChannel,
  operatorRowId: number,
  v: { phone: string; status: number; at: Date; cardNumber?: string | null },
) {
  const idNo = newIdNumber();
  const order = await t.db
    .insertInto('channel_order')
    .values({
      channel_info_id: c.channelInfoId,
      operator_id: operatorRowId,
      card_model_id: c.cardModelId,
      user_name: '张三',
      user_phone: v.phone,
      user_id_type: 1,
      user_idno: idNo,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const r = await t.db
    .insertInto('activation_record')
    .values({
      channel_info_id: c.channelInfoId,
      operator_id: operatorRowId,
      order_id: order.id,
      user_name: '张三',
      user_phone: v.phone,
      user_id_type: 1,
      user_idno: idNo,
      active_status: v.status,
      active_time: v.at,
      card_number: v.cardNumber ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

beforeAll(async () => {
  rec = await recordingSms();
  t = await createTestApp({}, { store: rec.store, services: { sms: rec.sms } });
  a = await createBankChannel(t.db, {
    operators: [
      { total: 30, day: 5, name: '西湖支行' },
      { total: 20, day: 4, name: '滨江支行' },
    ],
    pool: 5,
  });
  a2 = await createBankChannel(t.db, {
    operators: [{ total: 7, day: 7, name: '城西网点' }],
    merchantId: a.merchantId,
    businessId: a.businessId,
    pool: 0,
  });
  b = await createBankChannel(t.db, { operators: [{ total: 9, day: 9, name: '他行网点' }], pool: 0 });
  manager = await bankToken(t, await createBankUser(t.db, { businessId: a.businessId }));
  plainManager = await bankToken(
    t,
    await createBankUser(t.db, { businessId: a.businessId, permissions: ['bank:export:plain'] }),
  );
  tellerA1 = await bankToken(
    t,
    await createBankUser(t.db, { businessId: a.businessId, operatorRowId: a.operators[0].id }),
  );
  tellerA2 = await bankToken(
    t,
    await createBankUser(t.db, { businessId: a.businessId, operatorRowId: a.operators[1].id }),
  );
  activated = [];
  for (let i = 0; i < 2; i++) {
    const { res, person } = await activate(t, rec, tellerA1);
    expect(res.body.data.code).toBe(200);
    activated.push({
      phone: person.phone,
      idNo: person.userIdno,
      cardNumber: res.body.data.data.cardNumber,
      orderNo: res.body.data.data.orderNo,
      name: person.userName,
    });
  }
  await insertRecord(a, a.operators[0].id, { phone: extraPhones.confirming, status: 0, at: new Date() });
  yesterdayId = await insertRecord(a, a.operators[0].id, {
    phone: extraPhones.yesterday,
    status: 1,
    at: new Date(Date.now() - 86_400_000 - 60_000),
    cardNumber: 'OLD-CARD-1',
  });
  await insertRecord(a, a.operators[1].id, { phone: extraPhones.a2, status: 1, at: new Date() });
  await insertRecord(b, b.operators[0].id, { phone: newPhone(), status: 1, at: new Date() });
});
afterAll(async () => {
  await t?.close();
  await rec?.store.close();
});

describe('every statistics operation', () => {
  it('refuses a call without a token', async () => {
    for (const op of ['bankOperatorList', 'bankStat', 'getActivationDetailList', 'exportBankStatDetail']) {
      expect((await t.post(`${P}/${op}`, {})).body.errcode, op).toBe(401);
    }
  });
});

describe('bankOperatorList', () => {
  it("lists every operator of the manager's bank, not another bank's", async () => {
    const res = await t.post(`${P}/bankOperatorList`, {}, manager);
    expect(res.body.errcode).toBe(0);
    expect(res.body.data).toEqual([
      {
        id: a.operators[0].id,
        channelInfoId: a.channelInfoId,
        operatorId: 1000,
        operatorName: '西湖支行',
        totalCardNum: 30,
        dayCardNum: 5,
        status: 1,
        addDate: expect.any(String),
        merchantId: a.merchantId,
        shopId: a.shopId,
      },
      expect.objectContaining({ id: a.operators[1].id, operatorName: '滨江支行', totalCardNum: 20, dayCardNum: 4 }),
      expect.objectContaining({ id: a2.operators[0].id, channelInfoId: a2.channelInfoId, operatorName: '城西网点' }),
    ]);
  });

  it('shows an operator only itself', async () => {
    const res = await t.post(`${P}/bankOperatorList`, {}, tellerA2);
    expect(res.body.data.map((o: { id: number }) => o.id)).toEqual([a.operators[1].id]);
  });
});

describe('bankStat', () => {
  it('counts per operator: all activations, today, and those matching the filters', async () => {
    const res = await t.post(`${P}/bankStat`, {}, manager);
    expect(res.body.data).toEqual({
      total: 3,
      list: [
        { operatorName: '西湖支行', num: 4, operatorId: 1000, totalNum: 4, dayNum: 3 },
        { operatorName: '滨江支行', num: 1, operatorId: 1001, totalNum: 1, dayNum: 1 },
        { operatorName: '城西网点', num: 0, operatorId: 1000, totalNum: 0, dayNum: 0 },
      ],
    });
    const byPhone = await t.post(`${P}/bankStat`, { userPhone: activated[0].phone }, manager);
    expect(byPhone.body.data.list.map((r: { num: number }) => r.num)).toEqual([1, 0, 0]);
    const byCard = await t.post(`${P}/bankStat`, { cardNumber: 'OLD-CARD-1' }, manager);
    expect(byCard.body.data.list[0]).toMatchObject({ num: 1, totalNum: 4 });
    const now = new Date();
    const localToday = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
    const byDay = await t.post(`${P}/bankStat`, { activeTimeRange: [localToday, localToday] }, manager);
    expect(byDay.body.data.list.map((r: { num: number }) => r.num)).toEqual([3, 1, 0]);
  });

  it('filters operators by number and name, and scopes an operator to itself', async () => {
    expect(
      (await t.post(`${P}/bankStat`, { operatorId: 1001 }, manager)).body.data.list.map(
        (r: { operatorName: string }) => r.operatorName,
      ),
    ).toEqual(['滨江支行']);
    expect((await t.post(`${P}/bankStat`, { operatorName: '城西' }, manager)).body.data).toEqual({
      total: 1,
      list: [expect.objectContaining({ operatorName: '城西网点' })],
    });
    expect((await t.post(`${P}/bankStat`, {}, tellerA2)).body.data).toEqual({
      total: 1,
      list: [{ operatorName: '滨江支行', num: 1, operatorId: 1001, totalNum: 1, dayNum: 1 }],
    });
  });

  it('pages, and a page beyond the end is an empty list with the total', async () => {
    const second = await t.post(`${P}/bankStat`, { pageNum: 2, pageSize: 1 }, manager);
    expect(second.body.data).toEqual({ total: 3, list: [expect.objectContaining({ operatorName: '滨江支行' })] });
    expect((await t.post(`${P}/bankStat`, { pageNum: 5, pageSize: 10 }, manager)).body.data).toEqual({
      total: 3,
      list: [],
    });
  });

  it('refuses bad input with 400 naming the field', async () => {
    expect((await t.post(`${P}/bankStat`, { pageSize: 1.5 }, manager)).body.errmsg).toMatch(/^pageSize is invalid/);
    expect(
      (await t.post(`${P}/bankStat`, { activeTimeRange: ['2026-02-30', '2026-03-01'] }, manager)).body.errmsg,
    ).toMatch(/^activeTimeRange\[0\] is invalid/);
    expect(
      (await t.post(`${P}/bankStat`, { activeTimeRange: ['2026-03-02', '2026-03-01'] }, manager)).body.errmsg,
    ).toMatch(/^activeTimeRange is invalid/);
    expect((await t.post(`${P}/bankStat`, { operatorId: 'first' }, manager)).body.errmsg).toMatch(
      /^operatorId is invalid/,
    );
  });
});

describe('getActivationDetailList', () => {
  it('lists records newest first, both states when activeStatus is omitted, ID numbers masked', async () => {
    const all = await t.post(`${P}/getActivationDetailList`, { operatorId: 1000 }, manager);
    expect(all.body.data.total).toBe(4);
    const ids = all.body.data.list.map((r: { id: number }) => r.id);
    expect(ids).toEqual([...ids].sort((x, y) => y - x));
    const first = all.body.data.list.find((r: { userPhone: string }) => r.userPhone === activated[0].phone);
    expect(first).toEqual({
      id: expect.any(Number),
      activeTime: expect.any(String),
      cardNumber: activated[0].cardNumber,
      userName: activated[0].name,
      userPhone: activated[0].phone,
      orderNo: activated[0].orderNo,
      userIdno: mask(activated[0].idNo),
      activeStatus: 1,
      statusDesc: '已绑定',
    });
    const confirming = await t.post(`${P}/getActivationDetailList`, { activeStatus: 0 }, manager);
    expect(confirming.body.data.list).toEqual([
      expect.objectContaining({
        userPhone: extraPhones.confirming,
        activeStatus: 0,
        statusDesc: '确认中',
        cardNumber: null,
      }),
    ]);
    const bound = await t.post(`${P}/getActivationDetailList`, { activeStatus: 1, pageSize: 200 }, manager);
    expect(bound.body.data.total).toBe(4);
    expect((await t.post(`${P}/getActivationDetailList`, { activeStatus: 2 }, manager)).body.errmsg).toMatch(
      /^activeStatus is invalid/,
    );
  });

  it('shows ID numbers whole to an account holding bank:export:plain', async () => {
    const res = await t.post(`${P}/getActivationDetailList`, { operatorId: 1000, pageSize: 50 }, plainManager);
    expect(res.body.data.list.find((r: { userPhone: string }) => r.userPhone === activated[0].phone).userIdno).toBe(
      activated[0].idNo,
    );
  });

  it("shows an operator only its own records, and no bank another bank's", async () => {
    const own = await t.post(`${P}/getActivationDetailList`, {}, tellerA2);
    expect(own.body.data.list.map((r: { userPhone: string }) => r.userPhone)).toEqual([extraPhones.a2]);
    const all = await t.post(`${P}/getActivationDetailList`, { pageSize: 200 }, manager);
    expect(all.body.data.total).toBe(5);
  });
});

describe('exportBankStatDetail', () => {
  async function exportRows(token: string, body: Record<string, unknown> = {}) {
    const res = await t.app.inject({
      method: 'POST',
      url: `${P}/exportBankStatDetail`,
      payload: body,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const ws = wb.getWorksheet('激活明细')!;
    const rows: unknown[][] = [];
    ws.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
    return rows;
  }

  it('exports the records with the holder from the card binding, ID numbers masked, and logs the export', async () => {
    // The holder corrected the name on the card since: the binding wins.
    const card = await t.db
      .selectFrom('card')
      .select('id')
      .where('card_number', '=', activated[1].cardNumber)
      .executeTakeFirstOrThrow();
    await t.db.updateTable('card_binding').set({ name: '李四' }).where('card_id', '=', card.id).execute();
    const rows = await exportRows(manager, { operatorId: 1000 });
    expect(rows[0]).toEqual([
      '操作员编号',
      '操作员',
      '订单号',
      '卡号',
      '卡种',
      '姓名',
      '手机号',
      '证件类型',
      '证件号码',
      '状态',
      '激活时间',
    ]);
    expect(rows).toHaveLength(1 + 4);
    const second = rows.find((r) => r[3] === activated[1].cardNumber)!;
    expect(second).toEqual([
      1000,
      '西湖支行',
      activated[1].orderNo,
      activated[1].cardNumber,
      expect.any(String),
      '李四',
      activated[1].phone,
      '身份证',
      mask(activated[1].idNo),
      '已绑定',
      expect.stringMatching(/^\d{4}-/),
    ]);
    const log = await t.db
      .selectFrom('operate_log')
      .select(['action', 'success', 'account_kind'])
      .where('path', '=', `${P}/exportBankStatDetail`)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(log).toEqual({ action: '导出激活明细', success: true, account_kind: 'bank' });
  });

  it('shows ID numbers whole with bank:export:plain, and applies the filters', async () => {
    const rows = await exportRows(plainManager, { userPhone: activated[0].phone });
    expect(rows).toHaveLength(2);
    expect(rows[1][8]).toBe(activated[0].idNo);
    expect(await exportRows(manager, { activeStatus: 0 })).toHaveLength(2);
    expect(await exportRows(tellerA2)).toHaveLength(2);
    const yesterday = await t.db
      .selectFrom('activation_record')
      .select('active_time')
      .where('id', '=', yesterdayId)
      .executeTakeFirstOrThrow();
    const day = yesterday.active_time;
    const text = `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}`;
    const only = await exportRows(manager, { activeTimeRange: [text, text] });
    expect(only.slice(1).map((r) => r[6])).toEqual([extraPhones.yesterday]);
  });

  it('answers the error envelope for bad filters', async () => {
    const res = await t.post(`${P}/exportBankStatDetail`, { activeTimeRange: ['x', 'y'] }, manager);
    expect(res.body.errcode).toBe(400);
    expect(res.body.errmsg).toMatch(/^activeTimeRange/);
  });
});

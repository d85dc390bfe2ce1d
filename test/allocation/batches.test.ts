import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { buildScenario, mayRatio80, type Scenario } from './scenario.js';

/** The batch and detail reads, delete and export (spec A 4.3), and what merchant and shop users see. */
const P = '/manage-api/distributeAmount';

let t: TestApp;
let s: Scenario;
let platform: StaffSession;
let merchantA: StaffSession;
let shopA1: StaffSession;
let merchantB: StaffSession;
let merchantC: StaffSession;
/** batches saved in beforeAll: M1 and M2 of May, M1 of June (ratio 80) */
let may1: { id: number; batchNo: string; totalDistributeAmount: number };
let may2: { id: number };
let june1: { id: number };

async function ok(path: string, body: object, who = platform) {
  const res = await t.post(`${P}/${path}`, body, who.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}

beforeAll(async () => {
  t = await createTestApp();
  s = await buildScenario(t);
  platform = await staffSession(t, { kind: 'platform', permissions: ['allocation:*'] });
  merchantA = await staffSession(t, { kind: 'merchant', merchantId: s.merchantA, permissions: ['allocation:*'] });
  shopA1 = await staffSession(t, { kind: 'shop', shopId: s.shopA1, permissions: ['allocation:*'] });
  merchantB = await staffSession(t, { kind: 'merchant', merchantId: s.merchantB, permissions: ['allocation:*'] });
  merchantC = await staffSession(t, { kind: 'merchant', merchantId: s.merchantC, permissions: ['allocation:*'] });
  [may1, may2] = await ok('executeCalc', { year: 2026, month: 5, cardModelIds: [s.m1, s.m2] });
  [june1] = await ok('executeCalc', { year: 2026, month: 6, cardModelIds: [s.m1] });
});
afterAll(() => t?.close());

describe('rejection matrix', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/getDistributeBatch`,
    permission: 'allocation:read',
    validBody: () => ({ id: may1.id }),
    badInputs: [
      { body: () => ({}), field: 'id', rule: /id is required/ },
      { body: () => ({ id: 0 }), field: 'id' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryDistributeBatchPage`,
    permission: 'allocation:read',
    validBody: () => ({}),
    badInputs: [
      { body: () => ({ year: 2019 }), field: 'year' },
      { body: () => ({ month: 13 }), field: 'month' },
      { body: () => ({ quarter: 5 }), field: 'quarter', rule: /between 1 and 4/ },
      { body: () => ({ cardModelName: 'x'.repeat(129) }), field: 'cardModelName' },
      { body: () => ({ pageSize: 'ten' }), field: 'pageSize' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryDistributeDetailPage`,
    permission: 'allocation:read',
    validBody: () => ({ batchId: may1.id }),
    badInputs: [
      { body: () => ({}), field: 'batchId', rule: /batchId is required/ },
      { body: () => ({ batchId: may1.id, keywords: 'x'.repeat(65) }), field: 'keywords' },
      { body: () => ({ batchId: may1.id, pageNum: 1.5 }), field: 'pageNum' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/deleteDistributeBatch`,
    permission: 'allocation:delete',
    validBody: () => ({ id: 999_999_999 }),
    badInputs: [{ body: () => ({ id: 'x' }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/exportDistributeDetail`,
    permission: 'allocation:read',
    validBody: () => ({ batchId: may1.id }),
    badInputs: [{ body: () => ({}), field: 'batchId', rule: /batchId is required/ }],
  });

  it('answers 404 for an unknown batch on every operation', async () => {
    const missing = { errcode: 404, errmsg: 'allocation batch not found' };
    expect((await t.post(`${P}/getDistributeBatch`, { id: 999_999_999 }, platform.token)).body).toEqual(missing);
    expect((await t.post(`${P}/queryDistributeDetailPage`, { batchId: 999_999_999 }, platform.token)).body).toEqual(
      missing,
    );
    expect((await t.post(`${P}/deleteDistributeBatch`, { id: 999_999_999 }, platform.token)).body).toEqual(missing);
    const exp = await t.post(`${P}/exportDistributeDetail`, { batchId: 999_999_999 }, platform.token);
    expect(exp.body).toEqual(missing);
  });
});

describe('reads', () => {
  it('gets a batch as executeCalc answered it', async () => {
    const got = await ok('getDistributeBatch', { id: may1.id });
    expect(got).toEqual(may1);
    expect(got).toMatchObject({
      year: 2026,
      month: 5,
      quarter: 2,
      cardModelId: s.m1,
      status: 1,
      calcMode: 'ratio',
      ratio: 80,
      ...{ validUserCount: 4, totalDistributeAmount: 5280, parkCount: 3 },
    });
  });

  it('pages batches latest month first, with year, month, quarter and card model name filters', async () => {
    const all = await ok('queryDistributeBatchPage', { year: 2026 });
    expect(all.list.map((b: { id: number }) => b.id)).toEqual([june1.id, may1.id, may2.id]);
    expect(all.total).toBe(3);
    expect((await ok('queryDistributeBatchPage', { month: 5 })).list.map((b: { id: number }) => b.id)).toEqual([
      may1.id,
      may2.id,
    ]);
    expect(
      (await ok('queryDistributeBatchPage', { quarter: 2, cardModelName: '惠民' })).list.map(
        (b: { id: number }) => b.id,
      ),
    ).toEqual([may2.id]);
    expect((await ok('queryDistributeBatchPage', { quarter: 3 })).total).toBe(0);
    expect((await ok('queryDistributeBatchPage', { cardModelName: '%' })).total).toBe(0);
    const page2 = await ok('queryDistributeBatchPage', { pageNum: 2, pageSize: 2 });
    expect(page2).toEqual({ list: [expect.objectContaining({ id: may2.id })], total: 3 });
  });

  it("pages a batch's details in park order, with keywords in the park name", async () => {
    const page = await ok('queryDistributeDetailPage', { batchId: may1.id });
    expect(page.total).toBe(3);
    expect(page.list).toEqual(
      mayRatio80(s).details.map((d) => ({
        id: expect.any(Number),
        batchId: may1.id,
        year: 2026,
        month: 5,
        cardModelId: s.m1,
        ...d,
      })),
    );
    const found = await ok('queryDistributeDetailPage', { batchId: may1.id, keywords: '灵隐' });
    expect(found.list.map((d: { parkId: number }) => d.parkId)).toEqual([s.p2.spuId]);
    const second = await ok('queryDistributeDetailPage', { batchId: may1.id, pageNum: 2, pageSize: 2 });
    expect(second).toEqual({ list: [expect.objectContaining({ parkId: s.p3.spuId })], total: 3 });
  });
});

describe('scoping', () => {
  it('shows a merchant the batches naming its parks, and only its details', async () => {
    // Merchant A owns P1 and P2: May's M1 batch; June's M1 batch names them too (with 0).
    expect((await ok('queryDistributeBatchPage', {}, merchantA)).list.map((b: { id: number }) => b.id)).toEqual([
      june1.id,
      may1.id,
    ]);
    const details = await ok('queryDistributeDetailPage', { batchId: may1.id }, merchantA);
    expect(details.list.map((d: { parkId: number }) => d.parkId)).toEqual([s.p1.spuId, s.p2.spuId]);
    expect(details.total).toBe(2);
    expect((await ok('getDistributeBatch', { id: may1.id }, merchantB)).id).toBe(may1.id);
    expect(
      (await ok('queryDistributeDetailPage', { batchId: may1.id }, merchantB)).list.map(
        (d: { parkId: number }) => d.parkId,
      ),
    ).toEqual([s.p3.spuId]);
  });

  it("shows a shop user only its shop's parks", async () => {
    const details = await ok('queryDistributeDetailPage', { batchId: may1.id }, shopA1);
    expect(details.list.map((d: { parkId: number }) => d.parkId)).toEqual([s.p1.spuId]);
  });

  it("refuses a batch that names none of the caller's parks with 403, and lists none", async () => {
    const refused = { errcode: 403, errmsg: 'the record belongs to another merchant' };
    expect((await t.post(`${P}/getDistributeBatch`, { id: may1.id }, merchantC.token)).body).toEqual(refused);
    expect((await t.post(`${P}/queryDistributeDetailPage`, { batchId: may1.id }, merchantC.token)).body).toEqual(
      refused,
    );
    expect((await t.post(`${P}/exportDistributeDetail`, { batchId: may1.id }, merchantC.token)).body).toEqual(refused);
    // M2 has no park at all: only platform users see its batch.
    expect((await t.post(`${P}/getDistributeBatch`, { id: may2.id }, merchantA.token)).body).toEqual(refused);
    expect((await t.post(`${P}/getDistributeBatch`, { id: may2.id }, shopA1.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another shop',
    });
    expect((await ok('queryDistributeBatchPage', {}, merchantC)).total).toBe(0);
  });

  it('refuses delete to merchant users', async () => {
    const res = await t.post(`${P}/deleteDistributeBatch`, { id: may1.id }, merchantA.token);
    expect(res.body).toEqual({ errcode: 403, errmsg: 'only platform users can run or delete allocations' });
    expect((await ok('getDistributeBatch', { id: may1.id })).isDeleted).toBe(false);
  });
});

async function readBack(buffer: Buffer) {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(buffer as unknown as ArrayBuffer);
  return wb.worksheets[0];
}

/** The batch's status once the export's follow-up has run (it runs after the last byte went out). */
async function statusSettled(id: number, expected: number) {
  for (let i = 0; i < 200; i++) {
    const r = await t.db.selectFrom('distribute_batch').select('status').where('id', '=', id).executeTakeFirstOrThrow();
    if (r.status === expected) return r.status;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return (await t.db.selectFrom('distribute_batch').select('status').where('id', '=', id).executeTakeFirstOrThrow())
    .status;
}

describe('exportDistributeDetail', () => {
  it('streams the details with a header, yuan with two decimals and a total row equal to the batch total; marks the batch exported', async () => {
    const res = await t.post(`${P}/exportDistributeDetail`, { batchId: may1.id }, platform.token);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(res.headers['content-disposition']).toContain(encodeURIComponent(`分配明细_${may1.batchNo}.xlsx`));
    const ws = await readBack(res.raw.rawPayload);
    expect(ws.name).toBe('2026-05 畅游年卡 test');
    expect((ws.getRow(1).values as unknown[]).slice(1)).toEqual([
      '期间',
      '卡型',
      '景区ID',
      '景区名称',
      '核销次数',
      '分配比例(%)',
      '分配金额(元)',
    ]);
    const rows = [2, 3, 4].map((r) => (ws.getRow(r).values as unknown[]).slice(1));
    expect(rows).toEqual(
      mayRatio80(s).details.map((d) => [
        '2026-05',
        '畅游年卡 test',
        d.parkId,
        d.parkName,
        d.checkNum,
        d.distributePercent,
        d.distributeAmount / 100,
      ]),
    );
    expect(ws.getRow(2).getCell(7).numFmt).toBe('0.00');
    const total = (ws.getRow(5).values as unknown[]).slice(1);
    expect(total[0]).toBe('合计');
    expect(total[4]).toBe(7);
    expect(total[6]).toBe(may1.totalDistributeAmount / 100);
    expect(ws.rowCount).toBe(5);
    expect(await statusSettled(may1.id, 3)).toBe(3);
  });

  it('serves GET with batchId in the query string', async () => {
    const res = await t.call('GET', `${P}/exportDistributeDetail?batchId=${june1.id}`, { token: platform.token });
    expect(res.status).toBe(200);
    const ws = await readBack(res.raw.rawPayload);
    expect(ws.getRow(5).getCell(7).value).toBe(39.6);
    expect(await statusSettled(june1.id, 3)).toBe(3);
  });

  it("gives a merchant user only its parks' rows and leaves the status alone", async () => {
    const [fresh] = await ok('executeCalc', { year: 2026, month: 4, cardModelIds: [s.m1] });
    const res = await t.post(`${P}/exportDistributeDetail`, { batchId: fresh.id }, merchantA.token);
    expect(res.status).toBe(200);
    const ws = await readBack(res.raw.rawPayload);
    expect(ws.rowCount).toBe(4);
    expect([2, 3].map((r) => ws.getRow(r).getCell(3).value)).toEqual([s.p1.spuId, s.p2.spuId]);
    expect(ws.getRow(4).getCell(1).value).toBe('合计');
    // Given as long as a platform export's follow-up takes to move it, the status stays 1.
    expect(await statusSettled(fresh.id, 3)).toBe(1);
  });
});

describe('deleteDistributeBatch', () => {
  it("marks the batch deleted, removes its details and its month's ledger row, and logs it", async () => {
    const [b] = await ok('executeCalc', { year: 2026, month: 8, cardModelIds: [s.m1] });
    const [other] = await ok('executeCalc', { year: 2026, month: 8, cardModelIds: [s.m2] });
    expect((await t.post(`${P}/deleteDistributeBatch`, { id: b.id }, platform.token)).body).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
    expect((await t.post(`${P}/getDistributeBatch`, { id: b.id }, platform.token)).body.errcode).toBe(404);
    expect((await t.post(`${P}/deleteDistributeBatch`, { id: b.id }, platform.token)).body.errcode).toBe(404);
    const row = await t.db
      .selectFrom('distribute_batch')
      .select(['is_deleted', 'updated_by'])
      .where('id', '=', b.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ is_deleted: true, updated_by: platform.userId });
    expect(await t.db.selectFrom('distribute_detail').select('id').where('batch_id', '=', b.id).execute()).toEqual([]);
    const ledger = await t.db
      .selectFrom('deferred_revenue_ledger')
      .select(['card_model_id', 'batch_id'])
      .where('year', '=', 2026)
      .where('month', '=', 8)
      .execute();
    expect(ledger).toEqual([{ card_model_id: s.m2, batch_id: other.id }]);
    expect((await ok('queryDistributeBatchPage', { month: 8 })).list.map((x: { id: number }) => x.id)).toEqual([
      other.id,
    ]);
    const logs = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'biz_id', 'success'])
      .where('account_id', '=', platform.userId)
      .where('action', '=', '删除分配批次')
      .where('biz_id', '=', String(b.id))
      .orderBy('id')
      .execute();
    expect(logs).toEqual([
      { module: '月度分配', action: '删除分配批次', biz_id: String(b.id), success: true },
      { module: '月度分配', action: '删除分配批次', biz_id: String(b.id), success: false },
    ]);
    // The scope can be calculated again.
    const [again] = await ok('executeCalc', { year: 2026, month: 8, cardModelIds: [s.m1] });
    expect(again.id).not.toBe(b.id);
  });
});

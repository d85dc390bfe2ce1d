import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/** Code-generation column definitions (spec B 2.5, 4.5). */
const P = '/manage-api/infra/codegen';
const ALL = ['codegen:read', 'codegen:write'];

let t: TestApp;
let platform: StaffSession;
let merchant: StaffSession;
let nextTable = 70_000 + Math.floor(Math.random() * 10_000);

beforeAll(async () => {
  t = await createTestApp();
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  merchant = await staffSession(t, { kind: 'merchant', permissions: ALL });
});
afterAll(() => t?.close());

const column = (over: Record<string, unknown> = {}) => ({
  tableId: 1,
  columnName: 'card_number',
  dataType: 'varchar(32)',
  columnComment: 'card number',
  nullable: false,
  primaryKey: false,
  autoIncrement: 'false',
  ordinalPosition: 2,
  javaType: 'String',
  javaField: 'cardNumber',
  createOperation: true,
  updateOperation: true,
  listOperation: true,
  listOperationCondition: 'LIKE',
  listOperationResult: true,
  htmlType: 'input',
  ...over,
});

async function addOk(body: Record<string, unknown>) {
  const res = await t.post(`${P}/addCodegenColumn`, body, platform.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data as Record<string, unknown> & { id: number };
}

describe('rejection matrix', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/addCodegenColumn`,
    permission: 'codegen:write',
    validBody: () => column({ tableId: ++nextTable }),
    badInputs: [
      {
        body: () => {
          const { tableId: _, ...rest } = column();
          return rest;
        },
        field: 'tableId',
        rule: /tableId is required/,
      },
      {
        body: () => {
          const { columnName: _, ...rest } = column();
          return rest;
        },
        field: 'columnName',
        rule: /columnName is required/,
      },
      {
        body: () => {
          const { htmlType: _, ...rest } = column();
          return rest;
        },
        field: 'htmlType',
        rule: /htmlType is required/,
      },
      { body: () => column({ htmlType: 'slider' }), field: 'htmlType', rule: /must be one of input, textarea/ },
      {
        body: () => column({ listOperationCondition: 'IN' }),
        field: 'listOperationCondition',
        rule: /must be one of =, !=/,
      },
      { body: () => column({ columnName: '1st column' }), field: 'columnName' },
      { body: () => column({ javaField: 'card-number' }), field: 'javaField' },
      { body: () => column({ ordinalPosition: 0 }), field: 'ordinalPosition' },
      { body: () => column({ nullable: 'sometimes' }), field: 'nullable' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/updateCodegenColumn`,
    permission: 'codegen:write',
    validBody: () => ({ id: 1, ...column() }),
    badInputs: [{ body: () => column(), field: 'id', rule: /id is required/ }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/deleteCodegenColumn`,
    permission: 'codegen:write',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({ id: -1 }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/getCodegenColumn`,
    permission: 'codegen:read',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id', rule: /id is required/ }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryCodegenColumnList`,
    permission: 'codegen:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ htmlType: 'slider' }), field: 'htmlType' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryCodegenColumnPage`,
    permission: 'codegen:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ pageSize: 1.5 }), field: 'pageSize' }],
  });
});

describe('column definitions', () => {
  it('adds, reads, replaces and deletes a column definition', async () => {
    const tableId = ++nextTable;
    const created = await addOk(column({ tableId, dictType: 'card_status', example: '860000000001' }));
    expect(created).toEqual({
      id: expect.any(Number),
      ...column({ tableId }),
      dictType: 'card_status',
      example: '860000000001',
    });
    expect((await t.post(`${P}/getCodegenColumn`, { id: created.id }, platform.token)).body).toEqual({
      errcode: 0,
      errmsg: 'success',
      data: created,
    });

    const replaced = column({
      tableId,
      columnName: 'card_no',
      javaField: 'cardNo',
      htmlType: 'select',
      listOperationCondition: '=',
      dictType: '',
    });
    expect((await t.post(`${P}/updateCodegenColumn`, { id: created.id, ...replaced }, platform.token)).body).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
    const after = await t.post(`${P}/getCodegenColumn`, { id: created.id }, platform.token);
    expect(after.body.data).toEqual({ id: created.id, ...replaced, dictType: null, example: null });

    expect((await t.post(`${P}/deleteCodegenColumn`, { id: created.id }, platform.token)).body.errcode).toBe(0);
    expect((await t.post(`${P}/getCodegenColumn`, { id: created.id }, platform.token)).body).toEqual({
      errcode: 404,
      errmsg: 'codegen column not found',
    });
    expect(
      (await t.post(`${P}/updateCodegenColumn`, { id: created.id, ...replaced }, platform.token)).body.errcode,
    ).toBe(404);
    expect((await t.post(`${P}/deleteCodegenColumn`, { id: created.id }, platform.token)).body.errcode).toBe(404);
  });

  it('refuses a second column of the same name in one table, on add and on update', async () => {
    const tableId = ++nextTable;
    await addOk(column({ tableId, columnName: 'name' }));
    const other = await addOk(column({ tableId, columnName: 'phone', ordinalPosition: 3 }));
    const dup = await t.post(`${P}/addCodegenColumn`, column({ tableId, columnName: 'name' }), platform.token);
    expect(dup.body).toEqual({ errcode: 409, errmsg: `table ${tableId} already has a column named "name"` });
    const upd = await t.post(
      `${P}/updateCodegenColumn`,
      { id: other.id, ...column({ tableId, columnName: 'name' }) },
      platform.token,
    );
    expect(upd.body.errcode).toBe(409);
    // The same name in another table is fine.
    await addOk(column({ tableId: ++nextTable, columnName: 'name' }));
  });

  it("lists a table's columns in their order and filters by every field, idList and keywords", async () => {
    const tableId = ++nextTable;
    const c3 = await addOk(
      column({
        tableId,
        columnName: 'remark',
        javaField: 'remark',
        ordinalPosition: 3,
        htmlType: 'textarea',
        nullable: true,
        columnComment: '备注',
      }),
    );
    const c1 = await addOk(
      column({
        tableId,
        columnName: 'id',
        javaField: 'id',
        ordinalPosition: 1,
        primaryKey: true,
        autoIncrement: 'true',
        dataType: 'bigint',
        javaType: 'Long',
        listOperationCondition: '=',
      }),
    );
    const c2 = await addOk(
      column({
        tableId,
        columnName: 'created_time',
        javaField: 'createdTime',
        ordinalPosition: 2,
        htmlType: 'datetime',
        listOperationCondition: 'BETWEEN',
        javaType: 'java.time.LocalDateTime',
      }),
    );
    const ids = async (filter: object) =>
      (
        (await t.post(`${P}/queryCodegenColumnList`, { tableId, ...filter }, platform.token)).body.data as Array<{
          id: number;
        }>
      ).map((c) => c.id);
    expect(await ids({})).toEqual([c1.id, c2.id, c3.id]);
    expect(await ids({ primaryKey: true })).toEqual([c1.id]);
    expect(await ids({ nullable: true })).toEqual([c3.id]);
    expect(await ids({ htmlType: 'datetime' })).toEqual([c2.id]);
    expect(await ids({ listOperationCondition: 'BETWEEN' })).toEqual([c2.id]);
    expect(await ids({ javaType: 'Long' })).toEqual([c1.id]);
    expect(await ids({ columnName: 'TIME' })).toEqual([c2.id]);
    expect(await ids({ keywords: '备注' })).toEqual([c3.id]);
    expect(await ids({ idList: [c3.id, c1.id] })).toEqual([c1.id, c3.id]);
    expect(await ids({ ordinalPosition: 2, dataType: 'varchar(32)' })).toEqual([c2.id]);

    const page = await t.post(`${P}/queryCodegenColumnPage`, { tableId, pageNum: 2, pageSize: 2 }, platform.token);
    expect(page.body.data).toEqual({ list: [expect.objectContaining({ id: c3.id, columnName: 'remark' })], total: 3 });
  });

  it('is for platform staff only', async () => {
    const c = await addOk(column({ tableId: ++nextTable }));
    const refused = { errcode: 403, errmsg: 'code generation is for platform staff' };
    expect((await t.post(`${P}/getCodegenColumn`, { id: c.id }, merchant.token)).body).toEqual(refused);
    expect((await t.post(`${P}/queryCodegenColumnPage`, {}, merchant.token)).body).toEqual(refused);
    expect((await t.post(`${P}/addCodegenColumn`, column({ tableId: ++nextTable }), merchant.token)).body).toEqual(
      refused,
    );
    expect((await t.post(`${P}/deleteCodegenColumn`, { id: c.id }, merchant.token)).body).toEqual(refused);
  });

  it('logs every write with the column id, a refused one as a failure', async () => {
    const tableId = ++nextTable;
    const c = await addOk(column({ tableId }));
    await t.post(
      `${P}/updateCodegenColumn`,
      { id: c.id, ...column({ tableId, columnComment: 'changed' }) },
      platform.token,
    );
    await t.post(`${P}/deleteCodegenColumn`, { id: c.id }, platform.token);
    await t.post(`${P}/deleteCodegenColumn`, { id: c.id }, platform.token);
    const rows = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'success', 'errcode'])
      .where('account_id', '=', platform.userId)
      .where('biz_id', '=', String(c.id))
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.module, r.action, r.success, Number(r.errcode)])).toEqual([
      ['代码生成', '新增字段定义', true, 0],
      ['代码生成', '修改字段定义', true, 0],
      ['代码生成', '删除字段定义', true, 0],
      ['代码生成', '删除字段定义', false, 404],
    ]);
  });
});

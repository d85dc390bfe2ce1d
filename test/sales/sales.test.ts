import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDept, createMerchant, createShop, uniq } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The sales module (spec A 4.7) is the reference slice: this file is the model of the tests every
 * operation gets — the rejection matrix, scoping by merchant and shop, success, operation logs.
 */
const P = '/manage-api/sales';
const ALL = ['sales:read', 'sales:write'];

let t: TestApp;
/** merchant A with shops A1 and A2 (a department each), merchant B with one department */
let org: {
  merchantA: number;
  shopA1: number;
  shopA2: number;
  deptA: number;
  deptA1: number;
  deptA2: number;
  merchantB: number;
  deptB: number;
};
let platform: StaffSession;
let merchantA: StaffSession;
let shopA1: StaffSession;
let merchantB: StaffSession;
/** reads and changes merchants and departments through their own operations */
let ops: StaffSession;

beforeAll(async () => {
  t = await createTestApp();
  const mA = await createMerchant(t.db);
  const deptA = await createDept(t.db, { merchant_id: mA });
  const sA1 = await createShop(t.db, { merchant_id: mA });
  const sA2 = await createShop(t.db, { merchant_id: mA });
  const mB = await createMerchant(t.db);
  const deptB = await createDept(t.db, { merchant_id: mB });
  org = {
    merchantA: mA,
    shopA1: sA1,
    shopA2: sA2,
    deptA,
    deptA1: await createDept(t.db, { shop_id: sA1 }),
    deptA2: await createDept(t.db, { shop_id: sA2 }),
    merchantB: mB,
    deptB,
  };
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  merchantA = await staffSession(t, { kind: 'merchant', merchantId: org.merchantA, permissions: ALL });
  shopA1 = await staffSession(t, { kind: 'shop', shopId: org.shopA1, permissions: ALL });
  merchantB = await staffSession(t, { kind: 'merchant', merchantId: org.merchantB, permissions: ALL });
  ops = await staffSession(t, { kind: 'platform', permissions: ['merchant:write', 'dept:read', 'dept:write'] });
});
const succeeds = async (path: string, body: object) => {
  const res = await t.post(`/manage-api${path}`, body, ops.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
};
afterAll(() => t?.close());

const add = (who: StaffSession, body: Record<string, unknown>) => t.post(`${P}/addSales`, body, who.token);
async function addOk(who: StaffSession, body: Record<string, unknown>) {
  const res = await add(who, body);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data as {
    id: number;
    name: string;
    deptId: number;
    phone: string | null;
    inviteCode: string | null;
    qrcode: string | null;
  };
}
const code = () => uniq('INV').slice(0, 32);

describe('rejection matrix', () => {
  const validAdd = () => ({ name: 'Channel office', deptId: org.deptA });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/addSales`,
    permission: 'sales:write',
    validBody: validAdd,
    badInputs: [
      { body: () => ({ deptId: org.deptA }), field: 'name', rule: /name is required/ },
      { body: () => ({ name: 'x'.repeat(65), deptId: org.deptA }), field: 'name' },
      { body: () => ({ name: 'No dept' }), field: 'deptId', rule: /deptId is required/ },
      { body: () => ({ name: 'Bad dept', deptId: 0 }), field: 'deptId' },
      { body: () => ({ ...validAdd(), phone: 'call me' }), field: 'phone' },
      { body: () => ({ ...validAdd(), inviteCode: 'has space' }), field: 'inviteCode' },
      { body: () => ({ ...validAdd(), inviteCode: 'x'.repeat(33) }), field: 'inviteCode' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/updateSales`,
    permission: 'sales:write',
    validBody: () => ({ id: 1, ...validAdd() }),
    badInputs: [{ body: () => validAdd(), field: 'id', rule: /id is required/ }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/deleteSales`,
    permission: 'sales:write',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({ id: 'one' }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/getSales`,
    permission: 'sales:read',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id', rule: /id is required/ }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/querySalesList`,
    permission: 'sales:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ idList: 'all' }), field: 'idList' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/querySalesPage`,
    permission: 'sales:read',
    validBody: () => ({}),
    badInputs: [
      { body: () => ({ pageSize: 1.5 }), field: 'pageSize', rule: /whole number/ },
      { body: () => ({ pageNum: 2.5 }), field: 'pageNum' },
    ],
  });
});

describe('success', () => {
  it('adds, reads, updates and deletes a sales institution', async () => {
    const invite = code();
    const created = await addOk(platform, {
      name: '  Lakeside office ',
      deptId: org.deptA,
      phone: '0571-88886666',
      inviteCode: invite,
      qrcode: 'https://qr.example/1',
    });
    expect(created).toEqual({
      id: expect.any(Number),
      name: 'Lakeside office',
      deptId: org.deptA,
      phone: '0571-88886666',
      inviteCode: invite,
      qrcode: 'https://qr.example/1',
    });

    const got = await t.post(`${P}/getSales`, { id: created.id }, merchantA.token);
    expect(got.body).toEqual({ errcode: 0, errmsg: 'success', data: created });

    // Absent optional fields keep their values; "" clears one.
    const upd = await t.post(
      `${P}/updateSales`,
      { id: created.id, name: 'Lakeside', deptId: org.deptA, qrcode: '' },
      merchantA.token,
    );
    expect(upd.body).toEqual({ errcode: 0, errmsg: 'success' });
    const after = await t.post(`${P}/getSales`, { id: created.id }, platform.token);
    expect(after.body.data).toEqual({ ...created, name: 'Lakeside', qrcode: null });

    const del = await t.post(`${P}/deleteSales`, { id: created.id }, merchantA.token);
    expect(del.body).toEqual({ errcode: 0, errmsg: 'success' });
    expect((await t.post(`${P}/getSales`, { id: created.id }, platform.token)).body).toEqual({
      errcode: 404,
      errmsg: 'sales institution not found',
    });
    expect((await t.post(`${P}/deleteSales`, { id: created.id }, platform.token)).body.errcode).toBe(404);
    // The row stays, logically deleted: only the database shows it.
    const row = await t.db
      .selectFrom('sales')
      .select(['is_deleted', 'merchant_id'])
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ is_deleted: true, merchant_id: org.merchantA });
  });

  it("moves a sales institution to another department and takes that department's owner", async () => {
    const s = await addOk(merchantA, { name: 'Mover', deptId: org.deptA });
    expect(
      (await t.post(`${P}/updateSales`, { id: s.id, name: 'Mover', deptId: org.deptA1 }, merchantA.token)).body.errcode,
    ).toBe(0);
    // Now the shop user of A1 sees it (it took the shop), and the other shop's user does not.
    expect((await t.post(`${P}/getSales`, { id: s.id }, shopA1.token)).body.data).toMatchObject({
      name: 'Mover',
      deptId: org.deptA1,
    });
    const shopA2 = await staffSession(t, { kind: 'shop', shopId: org.shopA2, permissions: ALL });
    expect((await t.post(`${P}/getSales`, { id: s.id }, shopA2.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another shop',
    });
  });
});

describe('the department and its merchant', () => {
  const countIn = async (deptId: number) =>
    ((await t.post(`${P}/querySalesList`, { deptId }, platform.token)).body.data as unknown[]).length;

  it('adds nothing under a disabled merchant (1_022_000_001), neither by add nor by a move, and does once it is enabled again', async () => {
    const name = uniq('Dormant ');
    const merchant = await createMerchant(t.db, { name });
    const dept = await createDept(t.db, { merchant_id: merchant });
    const before = await addOk(platform, { name: 'Before the stop', deptId: dept });
    const elsewhere = await addOk(platform, { name: 'Elsewhere', deptId: org.deptA });
    await succeeds('/merchant/updateMerchantStatus', { id: merchant, status: 0 });

    const disabled = { errcode: 1_022_000_001, errmsg: `merchant "${name}" is disabled: enable it first` };
    expect((await add(platform, { name: 'During the stop', deptId: dept })).body).toEqual(disabled);
    expect(
      (await t.post(`${P}/updateSales`, { id: elsewhere.id, name: 'Elsewhere', deptId: dept }, platform.token)).body,
    ).toEqual(disabled);
    expect(await countIn(dept)).toBe(1);
    // A sales institution already there is still edited where it is.
    expect(
      (await t.post(`${P}/updateSales`, { id: before.id, name: 'Renamed', deptId: dept }, platform.token)).body.errcode,
    ).toBe(0);

    await succeeds('/merchant/updateMerchantStatus', { id: merchant, status: 1 });
    expect((await add(platform, { name: 'After the stop', deptId: dept })).body.errcode).toBe(0);
  });

  it('adds nothing to a disabled department (409), neither by add nor by a move; one already there stays editable', async () => {
    const dept = await createDept(t.db, { merchant_id: org.merchantA });
    const before = await addOk(merchantA, { name: 'Before disabling', deptId: dept });
    const elsewhere = await addOk(merchantA, { name: 'Elsewhere', deptId: org.deptA });
    const { name, parentId, sort } = await succeeds('/system/dept/getDept', { id: dept });
    await succeeds('/system/dept/updateDept', { id: dept, name, parentId, sort, isEnabled: false });

    const refused = { errcode: 409, errmsg: 'the department (deptId) is disabled: enable it first' };
    expect((await add(merchantA, { name: 'Into disabled', deptId: dept })).body).toEqual(refused);
    expect(
      (await t.post(`${P}/updateSales`, { id: elsewhere.id, name: 'Elsewhere', deptId: dept }, merchantA.token)).body,
    ).toEqual(refused);
    expect(await countIn(dept)).toBe(1);
    expect(
      (
        await t.post(
          `${P}/updateSales`,
          { id: before.id, name: 'Kept', deptId: dept, phone: '13800000000' },
          merchantA.token,
        )
      ).body.errcode,
    ).toBe(0);
    expect((await t.post(`${P}/getSales`, { id: before.id }, merchantA.token)).body.data).toMatchObject({
      name: 'Kept',
      deptId: dept,
    });
  });

  // Deterministic on PostgreSQL: the add is held between its read of the department and its insert
  // (another transaction holds the sales table in SHARE mode), and the delete runs in that window.
  it.runIf(!!process.env.DATABASE_URL)(
    'makes a delete of the department wait for an add that has read it, and then refuse (409)',
    async () => {
      const both = await staffSession(t, {
        kind: 'merchant',
        merchantId: org.merchantA,
        permissions: [...ALL, 'dept:write'],
      });
      const dept = await createDept(t.db, { merchant_id: org.merchantA });
      const name = uniq('Held add ');
      let deleted: Promise<{ body: { errcode: number; errmsg: string } }> | undefined;
      let added: Promise<{ body: { errcode: number; errmsg: string } }> | undefined;
      let deleteAnsweredWhileHeld = false;
      // only the database shows lock behaviour: a lock held by hand and the add waiting on it
      await t.db.transaction().execute(async (hold) => {
        await sql`lock table sales in share mode`.execute(hold);
        added = add(both, { name, deptId: dept });
        for (let i = 0; ; i++) {
          const waiting = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
          where wait_event_type = 'Lock' and query ilike 'insert into "sales"%'`.execute(t.db);
          if (waiting.rows[0].n > 0) break;
          if (i > 200) throw new Error('the add never reached its insert');
          await new Promise((r) => setTimeout(r, 10));
        }
        deleted = t.post('/manage-api/system/dept/deleteDept', { id: dept }, both.token);
        deleteAnsweredWhileHeld = await Promise.race([
          deleted.then(() => true),
          new Promise<boolean>((r) => setTimeout(() => r(false), 500)),
        ]);
      });
      expect(deleteAnsweredWhileHeld).toBe(false);
      expect((await added!).body.errcode).toBe(0);
      expect((await deleted!).body.errmsg).toMatch(/^the department is still referenced by 1 sales institution/);
      expect((await t.post('/manage-api/system/dept/getDept', { id: dept }, ops.token)).body.errcode).toBe(0);
    },
  );

  it('never leaves a living sales institution under a department deleted while sales institutions were being added to it', async () => {
    const both = await staffSession(t, {
      kind: 'merchant',
      merchantId: org.merchantA,
      permissions: [...ALL, 'dept:write'],
    });
    for (let round = 0; round < 8; round++) {
      const dept = await createDept(t.db, { merchant_id: org.merchantA });
      const racer = (i: number) => add(both, { name: `Racer ${round}.${i}`, deptId: dept });
      // The delete goes out among the adds, as in the QA report's script.
      const first = Array.from({ length: 5 }, (_, i) => racer(i));
      const del = t.post('/manage-api/system/dept/deleteDept', { id: dept }, both.token);
      const rest = Array.from({ length: 5 }, (_, i) => racer(5 + i));
      const [deleted, ...added] = await Promise.all([del, ...first, ...rest]);
      const addCodes = added.map((a) => a.body.errcode);
      const living = await countIn(dept);
      const deptGot = (await t.post('/manage-api/system/dept/getDept', { id: dept }, ops.token)).body;
      expect([0, 404]).toContain(deptGot.errcode);
      const deptGone = deptGot.errcode === 404;
      // Each add either went in first (and the delete saw it) or came after the delete (and found nothing).
      expect(
        addCodes.every((c) => c === 0 || c === 404),
        JSON.stringify(addCodes),
      ).toBe(true);
      expect(living).toBe(addCodes.filter((c) => c === 0).length);
      if (deleted.body.errcode === 0) {
        expect(living).toBe(0);
        expect(deptGone).toBe(true);
      } else {
        expect(deleted.body.errcode).toBe(409);
        expect(deptGone).toBe(false);
        expect(living).toBeGreaterThan(0);
      }
    }
  });
});

describe('invite codes', () => {
  it('refuses an invite code already used, on add and on update, with 409', async () => {
    const invite = code();
    const first = await addOk(merchantA, { name: 'First', deptId: org.deptA, inviteCode: invite });
    const dup = await add(merchantB, { name: 'Second', deptId: org.deptB, inviteCode: invite });
    expect(dup.body).toEqual({
      errcode: 409,
      errmsg: `inviteCode "${invite}" is already used by another sales institution`,
    });
    const other = await addOk(merchantA, { name: 'Other', deptId: org.deptA, inviteCode: code() });
    const upd = await t.post(
      `${P}/updateSales`,
      { id: other.id, name: 'Other', deptId: org.deptA, inviteCode: invite },
      merchantA.token,
    );
    expect(upd.body.errcode).toBe(409);
    // Keeping one's own code is not a clash.
    const keep = await t.post(
      `${P}/updateSales`,
      { id: first.id, name: 'First!', deptId: org.deptA, inviteCode: invite },
      merchantA.token,
    );
    expect(keep.body.errcode).toBe(0);
  });

  it('frees the invite code of a deleted sales institution', async () => {
    const invite = code();
    const s = await addOk(merchantA, { name: 'Gone', deptId: org.deptA, inviteCode: invite });
    await t.post(`${P}/deleteSales`, { id: s.id }, merchantA.token);
    expect((await add(merchantA, { name: 'Reuser', deptId: org.deptA, inviteCode: invite })).body.errcode).toBe(0);
  });

  it('lets exactly one of two concurrent adds take a code', async () => {
    const invite = code();
    const answers = await Promise.all(
      [1, 2, 3].map((i) => add(merchantA, { name: `Racer ${i}`, deptId: org.deptA, inviteCode: invite })),
    );
    expect(answers.map((a) => a.body.errcode).sort()).toEqual([0, 409, 409]);
  });
});

describe('scoping', () => {
  it('refuses a department of another merchant or shop with 403 and an unknown one with 404', async () => {
    // 403 as a foreign record answers everywhere (docs/adr/0033-scoping-by-platform-merchant-and-shop.md); until the QA pass it answered 404.
    expect((await add(merchantA, { name: 'Foreign dept', deptId: org.deptB })).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another merchant',
    });
    expect((await add(shopA1, { name: 'Sibling shop dept', deptId: org.deptA2 })).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another shop',
    });
    expect((await add(shopA1, { name: 'Merchant dept', deptId: org.deptA })).body.errcode).toBe(403);
    expect((await add(platform, { name: 'Unknown dept', deptId: 999_999_999 })).body).toEqual({
      errcode: 404,
      errmsg: 'department (deptId) not found',
    });
    expect((await add(merchantA, { name: 'Unknown dept', deptId: 999_999_999 })).body.errcode).toBe(404);
    const deleted = await createDept(t.db, { merchant_id: org.merchantA, is_deleted: true });
    expect((await add(merchantA, { name: 'Deleted dept', deptId: deleted })).body.errcode).toBe(404);
    expect((await add(shopA1, { name: 'Own dept', deptId: org.deptA1 })).body.errcode).toBe(0);
    // Moving one into a foreign department is refused the same way.
    const s = await addOk(merchantA, { name: 'Stays home', deptId: org.deptA });
    expect(
      (await t.post(`${P}/updateSales`, { id: s.id, name: 'Stays home', deptId: org.deptB }, merchantA.token)).body
        .errcode,
    ).toBe(403);
    expect((await t.post(`${P}/getSales`, { id: s.id }, merchantA.token)).body.data.deptId).toBe(org.deptA);
  });

  it("refuses another merchant's sales institution with 403 on every operation", async () => {
    const foreign = await addOk(merchantB, { name: 'B office', deptId: org.deptB, inviteCode: code() });
    const refused = { errcode: 403, errmsg: 'the record belongs to another merchant' };
    expect((await t.post(`${P}/getSales`, { id: foreign.id }, merchantA.token)).body).toEqual(refused);
    expect(
      (await t.post(`${P}/updateSales`, { id: foreign.id, name: 'Taken', deptId: org.deptA }, merchantA.token)).body,
    ).toEqual(refused);
    expect((await t.post(`${P}/deleteSales`, { id: foreign.id }, merchantA.token)).body).toEqual(refused);
    const still = await t.post(`${P}/getSales`, { id: foreign.id }, merchantB.token);
    expect(still.body.data).toEqual(foreign);
  });

  it("refuses a sibling shop's sales institution to a shop user with 403", async () => {
    const sibling = await addOk(merchantA, { name: 'A2 office', deptId: org.deptA2 });
    expect((await t.post(`${P}/getSales`, { id: sibling.id }, shopA1.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another shop',
    });
    expect((await t.post(`${P}/deleteSales`, { id: sibling.id }, shopA1.token)).body.errcode).toBe(403);
  });

  it('lists and pages only what the caller may see', async () => {
    const tag = uniq('scope');
    const a = await addOk(merchantA, { name: `${tag} A`, deptId: org.deptA });
    const a1 = await addOk(shopA1, { name: `${tag} A1`, deptId: org.deptA1 });
    const b = await addOk(merchantB, { name: `${tag} B`, deptId: org.deptB });
    const names = async (who: StaffSession) =>
      ((await t.post(`${P}/querySalesList`, { keywords: tag }, who.token)).body.data as Array<{ id: number }>)
        .map((s) => s.id)
        .sort();
    expect(await names(platform)).toEqual([a.id, a1.id, b.id].sort());
    expect(await names(merchantA)).toEqual([a.id, a1.id].sort());
    expect(await names(shopA1)).toEqual([a1.id]);
    expect(await names(merchantB)).toEqual([b.id]);
    const page = await t.post(`${P}/querySalesPage`, { keywords: tag, pageSize: 1 }, merchantA.token);
    expect(page.body.data).toEqual({ list: [expect.objectContaining({ id: Math.max(a.id, a1.id) })], total: 2 });
  });

  it('refuses a shop user that has no shop instead of widening it to the merchant', async () => {
    const shopless = await staffSession(t, { kind: 'merchant', merchantId: org.merchantA, permissions: ALL });
    // A corrupt account no operation makes: a shop user without a shop.
    await t.db.updateTable('admin_user').set({ user_type: 3 }).where('id', '=', shopless.userId).execute();
    await t.store.del(`sess:${(await import('../../src/platform/auth/token-codec.js')).hashToken(shopless.token)}`);
    const res = await t.post(`${P}/querySalesList`, {}, shopless.token);
    expect(res.body).toEqual({ errcode: 403, errmsg: 'this shop account is not attached to a shop' });
  });
});

describe('filters and paging', () => {
  it('filters by name within names, keywords over name/phone/invite code, idList and exact fields, and pages with the total', async () => {
    const tag = uniq('flt');
    const made = [];
    for (let i = 0; i < 7; i++) {
      made.push(
        await addOk(merchantA, {
          name: `${tag} office ${i}`,
          deptId: i < 4 ? org.deptA : org.deptA1,
          phone: `1380000${String(i).padStart(4, '0')}`,
          inviteCode: `${tag}-${i}`.slice(-32),
        }),
      );
    }
    const list = (body: object) =>
      t
        .post(`${P}/querySalesList`, body, merchantA.token)
        .then((r) => (r.body.data as Array<{ id: number }>).map((s) => s.id));
    expect(await list({ name: `${tag} OFFICE` })).toHaveLength(7);
    expect(await list({ keywords: `${tag} office 3` })).toEqual([made[3].id]);
    expect(await list({ keywords: '13800000005' })).toContain(made[5].id);
    expect(await list({ idList: [made[1].id, made[2].id], name: tag })).toEqual([made[2].id, made[1].id]);
    expect(await list({ deptId: org.deptA1, name: tag })).toEqual([made[6].id, made[5].id, made[4].id]);
    expect(await list({ inviteCode: made[0].inviteCode })).toEqual([made[0].id]);
    // % and _ in the filter are taken literally.
    expect(await list({ name: `${tag}%` })).toEqual([]);

    const page = (pageNum: number) =>
      t.post(`${P}/querySalesPage`, { name: tag, pageNum, pageSize: 3 }, merchantA.token).then((r) => r.body.data);
    const [p1, p2, p3, p4] = [await page(1), await page(2), await page(3), await page(4)];
    expect([p1.total, p2.total, p3.total, p4.total]).toEqual([7, 7, 7, 7]);
    expect([...p1.list, ...p2.list, ...p3.list].map((s: { id: number }) => s.id)).toEqual(
      made.map((m) => m.id).reverse(),
    );
    expect(p4.list).toEqual([]);
  });
});

describe('operation log', () => {
  it('records add, update and delete with the business id, and a failed write as a failure', async () => {
    const s = await addOk(merchantA, { name: 'Logged', deptId: org.deptA, inviteCode: code() });
    await t.post(`${P}/updateSales`, { id: s.id, name: 'Logged 2', deptId: org.deptA }, merchantA.token);
    const clash = await addOk(merchantA, { name: 'Clash', deptId: org.deptA, inviteCode: code() });
    await t.post(
      `${P}/updateSales`,
      { id: clash.id, name: 'Clash', deptId: org.deptA, inviteCode: s.inviteCode },
      merchantA.token,
    );
    await t.post(`${P}/deleteSales`, { id: s.id }, merchantA.token);
    // only the database shows the operation log
    const rows = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'biz_id', 'success', 'errcode', 'account_id'])
      .where('account_id', '=', merchantA.userId)
      .where('biz_id', 'in', [String(s.id), String(clash.id)])
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.action, r.biz_id, r.success, Number(r.errcode)])).toEqual([
      ['新增销售机构', String(s.id), true, 0],
      ['修改销售机构', String(s.id), true, 0],
      ['新增销售机构', String(clash.id), true, 0],
      ['修改销售机构', String(clash.id), false, 409],
      ['删除销售机构', String(s.id), true, 0],
    ]);
    expect(rows.every((r) => r.module === '销售机构')).toBe(true);
  });
});

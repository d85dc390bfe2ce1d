import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as m0027 from '../../src/db/migrations/20261127_0027_reserved_role_codes.js';
import { SHOP_ADMIN_ROLE } from '../../src/modules/shop/shop.service.js';
import { createMerchant, createShop, uniq } from '../helpers/factories.js';
import { staffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Migration 0027 on a database where merchants' and shops' roles took reserved codes before the
 * reservation (addRole refuses them now): each is renamed once, keeping its permissions and holders,
 * and addShop then links the global shop-admin role only.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

const roleRow = (id: number) =>
  t.db
    .selectFrom('role')
    .select(['code', 'merchant_id', 'shop_id', 'permissions'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
const holders = async (roleId: number) =>
  (await t.db.selectFrom('user_role').select('user_id').where('role_id', '=', roleId).execute()).map((r) => r.user_id);

describe('migration 0027 over roles holding reserved codes', () => {
  it("renames a merchant's and a shop's role once, leaves global roles alone, and addShop links the global role", async () => {
    const merchantA = await createMerchant(t.db);
    const merchantB = await createMerchant(t.db);
    const shopB = await createShop(t.db, { merchant_id: merchantB });
    // A database from before the reservation: no global shop_admin or merchant_admin yet, merchant B and its shop took the codes.
    await t.db
      .updateTable('role')
      .set({ code: uniq('hidden_') })
      .where('code', 'in', [SHOP_ADMIN_ROLE.code, 'merchant_admin'])
      .execute();
    const squat = await t.db
      .insertInto('role')
      .values({ code: SHOP_ADMIN_ROLE.code, name: 'squat', permissions: ['region:read'], merchant_id: merchantB })
      .returning('id')
      .executeTakeFirstOrThrow();
    const shopSquat = await t.db
      .insertInto('role')
      .values({ code: 'merchant_admin', name: 'shop squat', permissions: ['area:read'], shop_id: shopB })
      .returning('id')
      .executeTakeFirstOrThrow();
    const squatter = await staffSession(t, { kind: 'merchant', merchantId: merchantB });
    await t.db.insertInto('user_role').values({ user_id: squatter.userId, role_id: squat.id }).execute();
    const superAdmin = await t.db
      .selectFrom('role')
      .select(['id', 'code'])
      .where('code', '=', 'super_admin')
      .executeTakeFirstOrThrow();

    await m0027.up(t.db as unknown as Kysely<unknown>);

    expect(await roleRow(squat.id)).toEqual({
      code: `${SHOP_ADMIN_ROLE.code}_m${merchantB}_${squat.id}`,
      merchant_id: merchantB,
      shop_id: null,
      permissions: ['region:read'],
    });
    expect(await holders(squat.id)).toEqual([squatter.userId]);
    expect(await roleRow(shopSquat.id)).toEqual({
      code: `merchant_admin_m0_${shopSquat.id}`,
      merchant_id: null,
      shop_id: shopB,
      permissions: ['area:read'],
    });
    expect((await roleRow(superAdmin.id)).code).toBe('super_admin');
    // Once: a second run finds nothing to rename.
    await m0027.up(t.db as unknown as Kysely<unknown>);
    expect((await roleRow(squat.id)).code).toBe(`${SHOP_ADMIN_ROLE.code}_m${merchantB}_${squat.id}`);

    const ALL = ['shop:read', 'shop:write', ...SHOP_ADMIN_ROLE.permissions];
    for (const merchantId of [merchantA, merchantB]) {
      const caller = await staffSession(t, { kind: 'merchant', merchantId, permissions: ALL });
      const res = await t.post('/manage-api/shop/addShop', { merchantId, name: uniq('Gate ') }, caller.token);
      expect(res.body.errcode, res.body.errmsg).toBe(0);
      const roles = await t.db
        .selectFrom('user_role')
        .innerJoin('role', 'role.id', 'user_role.role_id')
        .select(['role.id', 'role.code', 'role.merchant_id', 'role.permissions'])
        .where('user_role.user_id', '=', res.body.data.userId)
        .execute();
      expect(roles).toEqual([
        {
          id: expect.any(Number),
          code: SHOP_ADMIN_ROLE.code,
          merchant_id: null,
          permissions: [...SHOP_ADMIN_ROLE.permissions],
        },
      ]);
      expect(roles[0].id).not.toBe(squat.id);
    }
    expect(await holders(squat.id)).toEqual([squatter.userId]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertInScope, scopeOf } from '../../src/platform/auth/permissions.js';
import { scopeCondition } from '../../src/platform/db/scope.js';
import type { Account } from '../../src/platform/http/context.js';
import { openTestDatabase, type TestDb } from '../helpers/test-app.js';

const staff = (userType: number, merchantId: number | null, shopId: number | null): Account => ({
  id: 1,
  kind: 'admin',
  name: 's',
  userType,
  merchantId,
  shopId,
  permissions: [],
});

describe('merchant and shop scoping', () => {
  let t: TestDb;
  let ids: { m1: number; m2: number; s1: number; s2: number };
  beforeAll(async () => {
    t = await openTestDatabase();
    const m = await t.db
      .insertInto('merchant')
      .values([{ name: 'M1' }, { name: 'M2' }])
      .returning('id')
      .execute();
    const s = await t.db
      .insertInto('shop')
      .values([
        { merchant_id: m[0].id, name: 'S1' },
        { merchant_id: m[0].id, name: 'S2' },
        { merchant_id: m[1].id, name: 'S3' },
      ])
      .returning('id')
      .execute();
    ids = { m1: m[0].id, m2: m[1].id, s1: s[0].id, s2: s[1].id };
  });
  afterAll(() => t.close());

  const shopsVisibleTo = async (account: Account) =>
    (
      await t.db
        .selectFrom('shop')
        .select('name')
        .where(scopeCondition(scopeOf(account), 'shop.merchant_id', 'shop.id'))
        .orderBy('name')
        .execute()
    ).map((r) => r.name);

  it('lets the platform see everything, a merchant its shops, a shop itself', async () => {
    expect(await shopsVisibleTo(staff(1, null, null))).toEqual(['S1', 'S2', 'S3']);
    expect(await shopsVisibleTo(staff(2, ids.m1, null))).toEqual(['S1', 'S2']);
    expect(await shopsVisibleTo(staff(3, ids.m1, ids.s2))).toEqual(['S2']);
  });

  it('refuses records of another merchant or shop with 403', () => {
    expect(() => assertInScope(staff(2, ids.m1, null), { merchantId: ids.m2 })).toThrow(
      expect.objectContaining({ errcode: 403 }),
    );
    expect(() => assertInScope(staff(3, ids.m1, ids.s1), { merchantId: ids.m1, shopId: ids.s2 })).toThrow(
      expect.objectContaining({ errcode: 403 }),
    );
    expect(() => assertInScope(staff(2, ids.m1, null), { merchantId: ids.m1, shopId: ids.s2 })).not.toThrow();
    expect(() => assertInScope(staff(1, null, null), { merchantId: ids.m2 })).not.toThrow();
  });

  it('gives an account attached to nothing no scope at all', () => {
    expect(() => scopeOf(staff(2, null, null))).toThrow(expect.objectContaining({ errcode: 403 }));
  });

  it('refuses a shop user without a shop rather than widening it to its merchant', () => {
    expect(() => scopeOf(staff(3, ids.m1, null))).toThrow(
      expect.objectContaining({ errcode: 403, message: 'this shop account is not attached to a shop' }),
    );
    expect(() => scopeOf(staff(3, null, null))).toThrow(expect.objectContaining({ errcode: 403 }));
  });
});

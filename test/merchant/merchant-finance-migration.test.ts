import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as m0030 from '../../src/db/migrations/20261128_0030_merchant_finance_owner.js';
import { createMerchant, createShop } from '../helpers/factories.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Migration 0030 on a database holding several living finance accounts of one owner and kind (loaded
 * directly, before any operation kept them one per owner): the newest of each stays, the others are
 * deleted logically, and the unique index then refuses a second one.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

describe('migration 0030 over duplicate finance accounts', () => {
  it('keeps the newest living account per (merchant, shop or none, ebankType) and makes the rule an index', async () => {
    const db = t.db as unknown as Kysely<unknown>;
    await m0030.down(db);
    const merchant = await createMerchant(t.db);
    const shop = await createShop(t.db, { merchant_id: merchant });
    const row = (o: { shop_id?: number; ebank_type?: number; is_deleted?: boolean }) => ({
      merchant_id: merchant,
      name: 'n',
      bank: 'b',
      bank_account: '123456',
      ...o,
    });
    const ids = [];
    for (const o of [{}, {}, { ebank_type: 2 }, { shop_id: shop }, { shop_id: shop }, {}, { is_deleted: true }]) {
      ids.push((await t.db.insertInto('merchant_finance').values(row(o)).returning('id').executeTakeFirstOrThrow()).id);
    }

    await m0030.up(db);

    const rows = await t.db
      .selectFrom('merchant_finance')
      .select(['id', 'is_deleted'])
      .where('merchant_id', '=', merchant)
      .orderBy('id')
      .execute();
    expect(rows.map((r) => r.is_deleted)).toEqual([true, true, false, true, false, false, true]);
    expect(rows.map((r) => r.id)).toEqual(ids);
    await expect(t.db.insertInto('merchant_finance').values(row({})).execute()).rejects.toMatchObject({
      code: '23505',
      constraint: 'merchant_finance_owner_uq',
    });
    await t.db
      .insertInto('merchant_finance')
      .values(row({ shop_id: shop, ebank_type: 2 }))
      .execute();
  });
});

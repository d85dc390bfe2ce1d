import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as m0028 from '../../src/db/migrations/20261127_0028_clear_stray_card_num.js';
import { createShop, createSku, createSpu } from '../helpers/factories.js';
import { staffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Migration 0028 on a database where a resource's type change, made before such changes were refused,
 * left cardNum on SKUs of goods that are no longer a tourism card: the living ones are cleared and can
 * be edited again; card SKUs and deleted SKUs keep what they hold.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

const cardNum = async (id: number) =>
  (await t.db.selectFrom('sku').select('card_num').where('id', '=', id).executeTakeFirstOrThrow()).card_num;

describe('migration 0028 over SKUs carrying cardNum on other goods', () => {
  it('clears the living ones only, and such a SKU is then edited with cardNum kept absent', async () => {
    const shopId = await createShop(t.db);
    const ticket = await createSpu(t.db, { shop_id: shopId, resource_type: 2 });
    const card = await createSpu(t.db, { shop_id: shopId, resource_type: 1 });
    const stray = await createSku(t.db, { goods_id: ticket, card_num: 100 });
    const strayZero = await createSku(t.db, { goods_id: ticket, card_num: 0 });
    const deleted = await createSku(t.db, { goods_id: ticket, card_num: 50, is_deleted: true });
    const carded = await createSku(t.db, { goods_id: card, card_num: 300 });

    await m0028.up(t.db as unknown as Kysely<unknown>);

    expect([await cardNum(stray), await cardNum(strayZero), await cardNum(deleted), await cardNum(carded)]).toEqual([
      null,
      null,
      50,
      300,
    ]);
    const staff = await staffSession(t, { kind: 'shop', shopId, permissions: ['catalog:read', 'catalog:write'] });
    const res = await t.post('/manage-api/sku/updateSku', { id: stray, skuName: 'Edited again' }, staff.token);
    expect(res.body).toEqual({ errcode: 0, errmsg: 'success' });
    const cardRes = await t.post('/manage-api/sku/updateSku', { id: carded, skuName: 'Card edited' }, staff.token);
    expect(cardRes.body).toEqual({ errcode: 0, errmsg: 'success' });
    expect([await cardNum(stray), await cardNum(carded)]).toEqual([null, 300]);
  });
});

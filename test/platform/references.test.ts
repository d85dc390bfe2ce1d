import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertUnreferenced,
  findReferences,
  stillReferenced,
  type ReferenceCheck,
} from '../../src/platform/db/references.js';
import { AppError } from '../../src/platform/errors.js';
import { toErrorAnswer } from '../../src/platform/http/error-handler.js';
import { createShop, createSpu } from '../helpers/factories.js';
import { openTestDatabase, type TestDb } from '../helpers/test-app.js';

/** "Deleting something still referenced → 409 naming what refers to it" (src/platform/db/references.ts). */
let t: TestDb;
beforeAll(async () => {
  t = await openTestDatabase();
});
afterAll(() => t?.close());

const SHOP_CHECKS: ReferenceCheck[] = [
  { label: ['resource', 'resources'], table: 'spu', column: 'shop_id', living: true },
  { label: ['department', 'departments'], table: 'dept', column: 'shop_id' },
];

describe('findReferences', () => {
  it('counts the referring rows and shows the lowest five ids', async () => {
    const shop = await createShop(t.db);
    const spus: number[] = [];
    for (let i = 0; i < 7; i++) spus.push(await createSpu(t.db, { shop_id: shop }));
    const refs = await findReferences(t.db, shop, SHOP_CHECKS);
    expect(refs).toEqual([{ label: ['resource', 'resources'], count: 7, ids: spus.slice(0, 5) }]);
    expect(stillReferenced('the shop', refs).message).toBe(
      `the shop is still referenced by 7 resources (ids ${spus.slice(0, 5).join(', ')}, …): remove or move those first`,
    );
  });

  it('leaves out logically deleted rows where asked, and finds ids inside array columns', async () => {
    const shop = await createShop(t.db);
    const spu = await createSpu(t.db, { shop_id: shop, is_deleted: true });
    expect(await findReferences(t.db, shop, SHOP_CHECKS)).toEqual([]);
    await expect(assertUnreferenced(t.db, 'the shop', shop, SHOP_CHECKS)).resolves.toBeUndefined();
    const tpl = await t.db
      .insertInto('coupon_template')
      .values({
        name: 'x',
        total_count: -1,
        take_limit_count: 1,
        take_type: 1,
        validity_type: 2,
        fixed_start_term: 0,
        fixed_end_term: 1,
        discount_type: 1,
        discount_price: 1,
        product_scope: 2,
        product_scope_values: [1, spu],
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const inArray: ReferenceCheck = {
      label: ['coupon template', 'coupon templates'],
      table: 'coupon_template',
      column: 'product_scope_values',
      contains: true,
    };
    expect(await findReferences(t.db, spu, [inArray])).toEqual([{ label: inArray.label, count: 1, ids: [tpl.id] }]);
    expect(await findReferences(t.db, spu, [{ ...inArray, where: { column: 'product_scope', equals: 3 } }])).toEqual(
      [],
    );
  });

  it('refuses with 409 naming each kind of referring record', async () => {
    const shop = await createShop(t.db);
    const spu = await createSpu(t.db, { shop_id: shop });
    const dept = await t.db
      .insertInto('dept')
      .values({
        name: 'd',
        shop_id: shop,
        merchant_id: (
          await t.db.selectFrom('shop').select('merchant_id').where('id', '=', shop).executeTakeFirstOrThrow()
        ).merchant_id,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const err = await assertUnreferenced(t.db, 'the shop', shop, SHOP_CHECKS).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(toErrorAnswer(err)).toMatchObject({
      errcode: 409,
      errmsg: `the shop is still referenced by 1 resource (id ${spu}) and 1 department (id ${dept.id}): remove or move those first`,
    });
  });
});

describe('AppError data', () => {
  it('carries details for the envelope only when given', () => {
    expect(new AppError(400, 'bad', 200, { data: { errors: [1] } }).data).toEqual({ errors: [1] });
    expect('data' in new AppError(400, 'bad')).toBe(false);
  });
});

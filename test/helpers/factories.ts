import { randomBytes } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { DB } from '../../src/db/types.js';
import type { Executor } from '../../src/platform/db/executor.js';
import { hashPassword } from '../../src/platform/auth/password.js';

/**
 * Test data builders (docs/architecture.md §4 rule 5). Each inserts one row with plausible defaults, takes any
 * column as an override (snake_case, as in SQL) and answers the new id. A missing parent is created
 * on the fly, and merchant/shop/goods ids are copied from the parent so the rows agree.
 */

type Over<T extends keyof DB> = Partial<Insertable<DB[T]>>;

let seq = 0;
/** Unique within a run and across parallel test files sharing one PostgreSQL template. */
export const uniq = (prefix = '') => `${prefix}${Date.now().toString(36)}${(++seq).toString(36)}${randomBytes(3).toString('hex')}`;

export function randomMobile(): string {
  const n = randomBytes(5).readUIntBE(0, 5) % 1_000_000_000;
  return `13${String(n).padStart(9, '0')}`;
}

export async function createMerchant(db: Executor, o: Over<'merchant'> = {}): Promise<number> {
  const r = await db.insertInto('merchant').values({ name: `Merchant ${uniq()}`, ...o }).returning('id').executeTakeFirstOrThrow();
  return r.id;
}

export async function createShop(db: Executor, o: Over<'shop'> = {}): Promise<number> {
  const merchant_id = o.merchant_id ?? (await createMerchant(db));
  const r = await db.insertInto('shop').values({ name: `Shop ${uniq()}`, ...o, merchant_id }).returning('id').executeTakeFirstOrThrow();
  return r.id;
}

/**
 * A department: of a shop when `shop_id` is given (its merchant copied), else of a merchant (created
 * when absent). Top level unless `parent_id` says otherwise.
 */
export async function createDept(db: Executor, o: Over<'dept'> = {}): Promise<number> {
  const merchant_id = o.merchant_id ?? (o.shop_id ? await shopOwner(db, o.shop_id) : await createMerchant(db));
  const r = await db.insertInto('dept').values({ name: `Dept ${uniq()}`, ...o, merchant_id }).returning('id').executeTakeFirstOrThrow();
  return r.id;
}

async function shopOwner(db: Executor, shopId: number): Promise<number> {
  const r = await db.selectFrom('shop').select('merchant_id').where('id', '=', shopId).executeTakeFirstOrThrow();
  return r.merchant_id;
}

/** A resource; resource_type 2 (scenic spot) unless told. */
export async function createSpu(db: Executor, o: Over<'spu'> = {}): Promise<number> {
  const shop_id = o.shop_id ?? (await createShop(db, o.merchant_id ? { merchant_id: o.merchant_id } : {}));
  const merchant_id = o.merchant_id ?? (await shopOwner(db, shop_id));
  const r = await db
    .insertInto('spu')
    .values({ name: `Scenic spot ${uniq()}`, resource_type: 2, ...o, shop_id, merchant_id })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

async function spuOf(db: Executor, id: number) {
  return db.selectFrom('spu').select(['merchant_id', 'shop_id']).where('id', '=', id).executeTakeFirstOrThrow();
}

async function skuOf(db: Executor, id: number) {
  return db.selectFrom('sku').select(['merchant_id', 'shop_id', 'goods_id']).where('id', '=', id).executeTakeFirstOrThrow();
}

export async function createSku(db: Executor, o: Over<'sku'> = {}): Promise<number> {
  const goods_id = o.goods_id ?? (await createSpu(db, { ...(o.merchant_id ? { merchant_id: o.merchant_id } : {}), ...(o.shop_id ? { shop_id: o.shop_id } : {}) }));
  const spu = await spuOf(db, goods_id);
  const r = await db
    .insertInto('sku')
    .values({ sku_name: `SKU ${uniq()}`, merchant_id: spu.merchant_id, shop_id: spu.shop_id, ...o, goods_id })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export async function createSkuEntrance(db: Executor, o: Over<'sku_entrance'> = {}): Promise<number> {
  const sku_id = o.sku_id ?? (await createSku(db));
  const sku = await skuOf(db, sku_id);
  const r = await db
    .insertInto('sku_entrance')
    .values({ entrance_name: `Gate ${uniq()}`, merchant_id: sku.merchant_id, shop_id: sku.shop_id, goods_id: sku.goods_id, ...o, sku_id })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

/** A ticket SKU, on shelf (status 1) unless told. */
export async function createTicketsSku(db: Executor, o: Over<'tickets_sku'> = {}): Promise<number> {
  const sku_id = o.sku_id ?? (await createSku(db));
  const sku = await skuOf(db, sku_id);
  const r = await db
    .insertInto('tickets_sku')
    .values({ sku_name: `Ticket ${uniq()}`, merchant_id: sku.merchant_id, shop_id: sku.shop_id, status: 1, base_price: 10000, ...o, sku_id })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

/** An enabled card model (status 1), 299.00 a year, unless told. */
export async function createCardModel(db: Executor, o: Over<'card_model'> = {}): Promise<number> {
  const r = await db
    .insertInto('card_model')
    .values({ name: `Card model ${uniq()}`, price: 29900, status: 1, ...o })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

/** A rule admitting a resource to a card model, settled by check count unless told. */
export async function createCardModelRule(db: Executor, o: Over<'card_model_resource_rule'> = {}): Promise<number> {
  const card_model_id = o.card_model_id ?? (await createCardModel(db));
  const resource_id = o.resource_id ?? (await createSpu(db));
  const r = await db
    .insertInto('card_model_resource_rule')
    .values({ settlement_way: 1, buy_price: 5000, ...o, card_model_id, resource_id })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export const DEFAULT_CHECKER_PASSWORD = 'Checker@2026';

/**
 * An active verifier; its password is hashed with argon2id (pass `password_hash` to store another
 * kind, e.g. a bcrypt hash). Answers the id and the credentials to log in with.
 */
export async function createChecker(
  db: Executor,
  o: Over<'checker'> & { password?: string } = {},
): Promise<{ id: number; mobile: string; password: string }> {
  const { password = DEFAULT_CHECKER_PASSWORD, ...cols } = o;
  const merchant_id = cols.merchant_id ?? (cols.shop_id ? await shopOwner(db, cols.shop_id) : await createMerchant(db));
  const mobile = cols.mobile ?? randomMobile();
  const password_hash = cols.password_hash ?? (await hashPassword(password));
  const r = await db
    .insertInto('checker')
    .values({ name: `Checker ${uniq()}`, ...cols, mobile, password_hash, merchant_id })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: r.id, mobile, password };
}

/** Lets a verifier check at a SKU: at one entrance, or at all of them when entrance_id is null. */
export async function createCheckerRelation(
  db: Executor,
  o: Over<'checker_relation'> & { checker_id: number; sku_id: number },
): Promise<number> {
  const sku = await skuOf(db, o.sku_id);
  const r = await db
    .insertInto('checker_relation')
    .values({ merchant_id: sku.merchant_id, shop_id: sku.shop_id, ...o })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export async function createCheckerConfig(db: Executor, o: Over<'checker_config'> & { checker_id: number }): Promise<number> {
  const r = await db
    .insertInto('checker_config')
    .values({ name: `Config ${uniq()}`, config_type: 1, item: 'checkMode', value: 'card', ...o })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

/** An active member with a fresh open id unless told. */
export async function createMember(db: Executor, o: Over<'member'> = {}): Promise<number> {
  const r = await db
    .insertInto('member')
    .values({ open_id: uniq('test_'), status: 1, register_terminal: 2, ...o })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

/**
 * A card of a model (created when absent), bound (status 2), active since yesterday and valid a year,
 * unless told. Pair it with createCardBinding for its holder.
 */
export async function createCard(db: Executor, o: Over<'card'> = {}): Promise<number> {
  const card_model_id = o.card_model_id ?? (await createCardModel(db));
  const day = 86_400_000;
  const r = await db
    .insertInto('card')
    .values({
      card_number: uniq('C').slice(0, 32), status: 2, medium: 2, active_time: new Date(Date.now() - day), expire_time: new Date(Date.now() + 365 * day),
      ...o, card_model_id,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

/** The holder of a card (ID card type 1, a fresh ID number and mobile unless told). */
export async function createCardBinding(db: Executor, o: Over<'card_binding'> & { card_id: number }): Promise<number> {
  const r = await db
    .insertInto('card_binding')
    .values({ name: `Holder ${uniq()}`, phone: randomMobile(), id_type: 1, id_no: uniq('ID').slice(0, 32).toUpperCase(), ...o })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

import { randomBytes } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { DB } from '../../src/db/types.js';
import {
  endBinding,
  insertBinding,
  insertCardModel,
  insertRule,
  setCardModelFlags,
  softDeleteRule,
} from '../../src/modules/card/index.js';
import {
  insertEntrances,
  insertSku,
  insertSpu,
  softDeleteEntrance,
  softDeleteSku,
  softDeleteSpu,
} from '../../src/modules/catalog/index.js';
import { insertConfig, softDeleteConfig } from '../../src/modules/checker/index.js';
import { insertDept, softDeleteDept } from '../../src/modules/dept/index.js';
import { setMemberStatus, upsertOnLogin } from '../../src/modules/member/index.js';
import { insertMerchant, setMerchantStatus } from '../../src/modules/merchant/index.js';
import { insertShop } from '../../src/modules/shop/index.js';
import { insertChecker, replaceRelations, setCheckerStatus } from '../../src/modules/verifier/index.js';
import { hashPassword } from '../../src/platform/auth/password.js';
import type { Executor } from '../../src/platform/db/executor.js';

/**
 * Test data builders (docs/architecture.md §4 rule 5). Each makes one record with plausible defaults
 * through its owning module's front door (the table owners of docs/architecture.md §4), takes any column
 * as an override (snake_case, as in SQL) and answers the new id. A missing parent is created on the fly,
 * and merchant/shop/goods ids are copied from the parent so the rows agree. A column the owner's insert
 * does not take goes through the owner's own update (a status, a logical delete) when it has one;
 * whatever is left (timestamps, audit columns) is written onto the new row last, as given.
 */

type Over<T extends keyof DB> = Partial<Insertable<DB[T]>>;

let seq = 0;
/** Unique within a run and across parallel test files sharing one PostgreSQL template. */
export const uniq = (prefix = '') =>
  `${prefix}${Date.now().toString(36)}${(++seq).toString(36)}${randomBytes(3).toString('hex')}`;

export function randomMobile(): string {
  const n = randomBytes(5).readUIntBE(0, 5) % 1_000_000_000;
  return `13${String(n).padStart(9, '0')}`;
}

/**
 * The author to hand an owner's function for a fixture row: the test's created_by, else no one (null,
 * which the audit columns allow). Some owners type `by` as a staff id, since their routes always have
 * one; a fixture has none.
 */
export const authoredBy = (createdBy?: number | null) => (createdBy ?? null) as number;

/** Whether a test set any column of these (an undefined one is not set). */
const anySet = (cols: object) => Object.values(cols).some((v) => v !== undefined);

/** numeric columns take text or a number; the owners' values are numbers */
const num = (v: string | number | null | undefined) => (v === undefined || v === null ? null : Number(v));

export async function createMerchant(db: Executor, o: Over<'merchant'> = {}): Promise<number> {
  const {
    name = `Merchant ${uniq()}`,
    merchant_type = 2,
    contact_name = null,
    contact_phone = null,
    address = null,
    remark = null,
    status,
    created_by,
    ...rest
  } = o;
  const id = await insertMerchant(
    db,
    { name, merchantType: merchant_type, contactName: contact_name, contactPhone: contact_phone, address, remark },
    created_by ?? null,
  );
  if (status !== undefined && status !== 1) await setMerchantStatus(db, id, status, authoredBy(created_by));
  // The merchant module deletes no merchant: a deleted one (and any timestamp) is written as given.
  if (anySet(rest)) await db.updateTable('merchant').set(rest).where('id', '=', id).execute();
  return id;
}

export async function createShop(db: Executor, o: Over<'shop'> = {}): Promise<number> {
  const {
    merchant_id,
    name = `Shop ${uniq()}`,
    type_id = null,
    sub_type_id = null,
    status = 1,
    created_by,
    logo = null,
    province_id = null,
    city_id = null,
    district_id = null,
    address = null,
    mobile = null,
    linkman = null,
    linkphone = null,
    manager = null,
    level = null,
    lng = null,
    lat = null,
    introduction = null,
    business_time = null,
    tags = null,
    main_pic = null,
    propagate_pic = null,
    video = null,
    poster = null,
    propagate_content = null,
    description = null,
    ticket_info = null,
    traffic_info = null,
    tips = null,
    third_id = null,
    third_name = null,
    ...rest
  } = o;
  const merchantId = merchant_id ?? (await createMerchant(db));
  const id = await insertShop(
    db,
    {
      merchantId,
      name,
      typeId: type_id,
      subTypeId: sub_type_id,
      status,
      logo,
      provinceId: province_id,
      cityId: city_id,
      districtId: district_id,
      address,
      mobile,
      linkman,
      linkphone,
      manager,
      level,
      lng,
      lat,
      introduction,
      businessTime: business_time,
      tags,
      mainPic: main_pic,
      propagatePic: propagate_pic,
      video,
      poster,
      propagateContent: propagate_content,
      description,
      ticketInfo: ticket_info,
      trafficInfo: traffic_info,
      tips,
      thirdId: third_id,
      thirdName: third_name,
    },
    authoredBy(created_by),
  );
  // softDeleteShop belongs to deleteShop, which takes the shop's departments and staff with it: a
  // deleted fixture shop (and any timestamp) is written as given.
  if (anySet(rest)) await db.updateTable('shop').set(rest).where('id', '=', id).execute();
  return id;
}

/**
 * A department: of a shop when `shop_id` is given (its merchant copied), else of a merchant (created
 * when absent). Top level unless `parent_id` says otherwise.
 */
export async function createDept(db: Executor, o: Over<'dept'> = {}): Promise<number> {
  const {
    merchant_id,
    shop_id = null,
    name = `Dept ${uniq()}`,
    parent_id = 0,
    sort = 0,
    leader_user_id = null,
    phone = null,
    email = null,
    tenant_id = null,
    is_enabled = true,
    is_deleted,
    created_by,
    ...rest
  } = o;
  const merchantId = merchant_id ?? (shop_id ? await shopOwner(db, shop_id) : await createMerchant(db));
  const id = await insertDept(
    db,
    {
      merchantId,
      shopId: shop_id,
      name,
      parentId: parent_id,
      sort,
      leaderUserId: leader_user_id,
      phone,
      email,
      tenantId: tenant_id,
      isEnabled: is_enabled,
    },
    authoredBy(created_by),
  );
  if (is_deleted) await softDeleteDept(db, id, authoredBy(created_by));
  if (anySet(rest)) await db.updateTable('dept').set(rest).where('id', '=', id).execute();
  return id;
}

async function shopOwner(db: Executor, shopId: number): Promise<number> {
  const r = await db.selectFrom('shop').select('merchant_id').where('id', '=', shopId).executeTakeFirstOrThrow();
  return r.merchant_id;
}

/** A resource; resource_type 2 (scenic spot) unless told. */
export async function createSpu(db: Executor, o: Over<'spu'> = {}): Promise<number> {
  const {
    shop_id,
    merchant_id,
    name = `Scenic spot ${uniq()}`,
    resource_type = 2,
    cost_price = null,
    stock = null,
    status = 1,
    description = null,
    is_deleted,
    created_by,
    ...rest
  } = o;
  const shopId = shop_id ?? (await createShop(db, merchant_id ? { merchant_id } : {}));
  const merchantId = merchant_id ?? (await shopOwner(db, shopId));
  const id = await insertSpu(
    db,
    {
      name,
      shopId,
      merchantId,
      resourceType: resource_type,
      costPrice: cost_price,
      stock,
      status,
      description,
    },
    authoredBy(created_by),
  );
  if (is_deleted) await softDeleteSpu(db, id, authoredBy(created_by));
  if (anySet(rest)) await db.updateTable('spu').set(rest).where('id', '=', id).execute();
  return id;
}

async function spuOf(db: Executor, id: number) {
  return db.selectFrom('spu').select(['merchant_id', 'shop_id']).where('id', '=', id).executeTakeFirstOrThrow();
}

async function skuOf(db: Executor, id: number) {
  return db
    .selectFrom('sku')
    .select(['merchant_id', 'shop_id', 'goods_id'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

export async function createSku(db: Executor, o: Over<'sku'> = {}): Promise<number> {
  const goodsId =
    o.goods_id ??
    (await createSpu(db, {
      ...(o.merchant_id ? { merchant_id: o.merchant_id } : {}),
      ...(o.shop_id ? { shop_id: o.shop_id } : {}),
    }));
  const spu = await spuOf(db, goodsId);
  const {
    goods_id: _g,
    merchant_id = spu.merchant_id,
    shop_id = spu.shop_id,
    sku_name = `SKU ${uniq()}`,
    status = 1,
    goods_channel_id = null,
    show_price = null,
    buy_price = null,
    cost_price = null,
    buy_count = null,
    stock = null,
    is_logistic = null,
    carriage_id = null,
    mold = null,
    is_distributes = null,
    commission = null,
    is_preferential = null,
    is_use_score = null,
    is_add_score = null,
    use_score_rate,
    add_score_rate,
    card_num = null,
    is_deleted,
    created_by,
    ...rest
  } = o;
  const id = await insertSku(
    db,
    {
      goodsId,
      merchantId: merchant_id,
      shopId: shop_id,
      skuName: sku_name,
      status,
      goodsChannelId: goods_channel_id,
      showPrice: show_price,
      buyPrice: buy_price,
      costPrice: cost_price,
      buyCount: buy_count,
      stock,
      isLogistic: is_logistic,
      carriageId: carriage_id,
      mold,
      isDistributes: is_distributes,
      commission,
      isPreferential: is_preferential,
      isUseScore: is_use_score,
      isAddScore: is_add_score,
      useScoreRate: num(use_score_rate),
      addScoreRate: num(add_score_rate),
      cardNum: card_num,
    },
    authoredBy(created_by),
  );
  if (is_deleted) await softDeleteSku(db, id, authoredBy(created_by));
  if (anySet(rest)) await db.updateTable('sku').set(rest).where('id', '=', id).execute();
  return id;
}

export async function createSkuEntrance(db: Executor, o: Over<'sku_entrance'> = {}): Promise<number> {
  const skuId = o.sku_id ?? (await createSku(db));
  const sku = await skuOf(db, skuId);
  const {
    sku_id: _s,
    entrance_name = `Gate ${uniq()}`,
    merchant_id,
    shop_id,
    goods_id,
    is_deleted,
    created_by,
    ...rest
  } = o;
  await insertEntrances(
    db,
    {
      skuId,
      merchantId: merchant_id ?? sku.merchant_id,
      shopId: shop_id === undefined ? sku.shop_id : shop_id,
      goodsId: goods_id ?? sku.goods_id,
    },
    [entrance_name],
    authoredBy(created_by),
  );
  // insertEntrances answers no ids: the newest entrance of the SKU is the one just added.
  const { id } = await db
    .selectFrom('sku_entrance')
    .select('id')
    .where('sku_id', '=', skuId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();
  if (is_deleted) await softDeleteEntrance(db, id, authoredBy(created_by));
  if (anySet(rest)) await db.updateTable('sku_entrance').set(rest).where('id', '=', id).execute();
  return id;
}

/** A ticket SKU, on shelf (status 1) unless told. */
export async function createTicketsSku(db: Executor, o: Over<'tickets_sku'> = {}): Promise<number> {
  const sku_id = o.sku_id ?? (await createSku(db));
  const sku = await skuOf(db, sku_id);
  // Written directly: the catalog module has no function that adds a ticket kind.
  const r = await db
    .insertInto('tickets_sku')
    .values({
      sku_name: `Ticket ${uniq()}`,
      merchant_id: sku.merchant_id,
      shop_id: sku.shop_id,
      status: 1,
      base_price: 10000,
      ...o,
      sku_id,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

/**
 * An enabled card model (status 1), 299.00 a year, unless told; like a model made before prices were
 * kept (docs/adr/0051-card-prices-kept-as-a-history.md), it has no recorded price history.
 */
export async function createCardModel(db: Executor, o: Over<'card_model'> = {}): Promise<number> {
  const {
    name = `Card model ${uniq()}`,
    price = 29900,
    validity_months = 12,
    allocation_enabled = false,
    sku_id = null,
    merchant_id = null,
    remark = null,
    status,
    created_by,
    created_at,
    ...rest
  } = o;
  const id = await insertCardModel(
    db,
    {
      name,
      price,
      validityMonths: validity_months,
      allocationEnabled: allocation_enabled,
      skuId: sku_id,
      merchantId: merchant_id,
      remark,
    },
    created_by ?? null,
    created_at === undefined ? new Date() : new Date(created_at),
  );
  // insertCardModel always opens the history; its first row is removed so that the tests pricing cards
  // by period (statistics) can write the history they need, which takes one current row per model.
  await db.deleteFrom('card_model_price_history').where('card_model_id', '=', id).execute();
  if (status !== undefined && status !== 1) await setCardModelFlags(db, id, { status }, authoredBy(created_by));
  // The card module deletes no card model: a deleted one (and any timestamp) is written as given.
  if (anySet(rest)) await db.updateTable('card_model').set(rest).where('id', '=', id).execute();
  return id;
}

/** A rule admitting a resource to a card model, settled by check count unless told. */
export async function createCardModelRule(db: Executor, o: Over<'card_model_resource_rule'> = {}): Promise<number> {
  const {
    card_model_id,
    resource_id,
    settlement_way = 1,
    buy_price = 5000,
    settlement_factor = 1,
    buyout_amount = null,
    share_percent,
    daily_check_limit = 1,
    is_deleted,
    created_by,
    ...rest
  } = o;
  const modelId = card_model_id ?? (await createCardModel(db));
  const resourceId = resource_id ?? (await createSpu(db));
  const id = await insertRule(
    db,
    modelId,
    resourceId,
    {
      settlementWay: settlement_way,
      buyPrice: buy_price,
      settlementFactor: Number(settlement_factor),
      buyoutAmount: buyout_amount,
      sharePercent: num(share_percent),
      dailyCheckLimit: daily_check_limit,
    },
    created_by ?? null,
  );
  if (is_deleted) await softDeleteRule(db, id, authoredBy(created_by));
  if (anySet(rest)) await db.updateTable('card_model_resource_rule').set(rest).where('id', '=', id).execute();
  return id;
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
  const {
    password = DEFAULT_CHECKER_PASSWORD,
    name = `Checker ${uniq()}`,
    mobile = randomMobile(),
    password_hash,
    merchant_id,
    shop_id = null,
    ssk_flag = false,
    status,
    created_by,
    ...rest
  } = o;
  const merchantId = merchant_id ?? (shop_id ? await shopOwner(db, shop_id) : await createMerchant(db));
  const passwordHash = password_hash ?? (await hashPassword(password));
  const id = await insertChecker(
    db,
    { mobile, name, passwordHash, merchantId, shopId: shop_id, sskFlag: ssk_flag },
    created_by ?? null,
  );
  if (status !== undefined && status !== 1) await setCheckerStatus(db, id, status, authoredBy(created_by));
  // The verifier module deletes no verifier row (it disables it): a deleted one, a login stamp or a
  // timestamp is written as given.
  if (anySet(rest)) await db.updateTable('checker').set(rest).where('id', '=', id).execute();
  return { id, mobile, password };
}

/**
 * Lets a verifier check at a SKU: at one entrance, or at all of them when entrance_id is null. The
 * verifier module sets a verifier's relations as a whole (replaceRelations), so its earlier relations
 * are written again with this one and take new ids.
 */
export async function createCheckerRelation(
  db: Executor,
  o: Over<'checker_relation'> & { checker_id: number; sku_id: number },
): Promise<number> {
  const { checker_id, sku_id, entrance_id = null, merchant_id, shop_id, created_by, ...rest } = o;
  const sku = await skuOf(db, sku_id);
  const held = await db
    .selectFrom('checker_relation as cr')
    .innerJoin('sku', 'sku.id', 'cr.sku_id')
    .select(['cr.sku_id', 'cr.entrance_id', 'cr.merchant_id', 'cr.shop_id', 'sku.merchant_id as sku_merchant_id'])
    .where('cr.checker_id', '=', checker_id)
    .orderBy('cr.id')
    .execute();
  const rows = [
    ...held.map((r) => ({
      skuId: r.sku_id,
      entranceId: r.entrance_id,
      merchantId: r.merchant_id ?? r.sku_merchant_id,
      shopId: r.shop_id,
    })),
    {
      skuId: sku_id,
      entranceId: entrance_id,
      merchantId: merchant_id ?? sku.merchant_id,
      shopId: shop_id === undefined ? sku.shop_id : shop_id,
    },
  ];
  const ids = await replaceRelations(db, checker_id, rows, created_by ?? null);
  const id = ids[ids.length - 1];
  if (anySet(rest)) await db.updateTable('checker_relation').set(rest).where('id', '=', id).execute();
  return id;
}

export async function createCheckerConfig(
  db: Executor,
  o: Over<'checker_config'> & { checker_id: number },
): Promise<number> {
  const {
    checker_id,
    merchant_id = null,
    shop_id = null,
    name = `Config ${uniq()}`,
    config_type = 1,
    item = 'checkMode',
    value = 'card',
    remark = null,
    is_deleted,
    created_by,
    ...rest
  } = o;
  const id = await insertConfig(
    db,
    {
      checkerId: checker_id,
      merchantId: merchant_id,
      shopId: shop_id,
      name,
      configType: config_type,
      item,
      value,
      remark,
    },
    authoredBy(created_by),
  );
  if (is_deleted) await softDeleteConfig(db, id, authoredBy(created_by));
  if (anySet(rest)) await db.updateTable('checker_config').set(rest).where('id', '=', id).execute();
  return id;
}

/** An active member of the mini program with a fresh open id, never logged in, unless told. */
export async function createMember(db: Executor, o: Over<'member'> = {}): Promise<number> {
  const {
    open_id,
    third_id = null,
    register_terminal,
    nickname = null,
    avatar = null,
    register_ip = null,
    login_ip = null,
    login_date = null,
    status,
    ...rest
  } = o;
  // A member is made by its first mini-program login; the login it stamps is the test's (none unless told).
  const login = await upsertOnLogin(db, {
    openId: open_id ?? uniq('test_'),
    unionId: third_id,
    ip: '',
    terminal: register_terminal ?? 2,
    nickname,
    avatar,
    at: new Date(),
  });
  if (!login) throw new Error(`open id ${open_id} belongs to a disabled or deleted member`);
  if (status !== undefined && status !== 1) await setMemberStatus(db, login.id, status, authoredBy(o.created_by));
  await db
    .updateTable('member')
    .set({ ...rest, register_ip, login_ip, login_date })
    .where('id', '=', login.id)
    .execute();
  return login.id;
}

/**
 * A card of a model (created when absent), bound (status 2), active since yesterday and valid a year,
 * unless told. Pair it with createCardBinding for its holder.
 */
export async function createCard(db: Executor, o: Over<'card'> = {}): Promise<number> {
  const card_model_id = o.card_model_id ?? (await createCardModel(db));
  const day = 86_400_000;
  // Written directly: the card module adds cards only as the numbers of a card batch (insertCardNumbers,
  // under a card_batch row), and a fixture card belongs to no batch.
  const r = await db
    .insertInto('card')
    .values({
      card_number: uniq('C').slice(0, 32),
      status: 2,
      medium: 2,
      active_time: new Date(Date.now() - day),
      expire_time: new Date(Date.now() + 365 * day),
      ...o,
      card_model_id,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

/** The holder of a card (ID card type 1, a fresh ID number and mobile unless told). */
export async function createCardBinding(db: Executor, o: Over<'card_binding'> & { card_id: number }): Promise<number> {
  const {
    card_id,
    member_id = null,
    name,
    phone,
    id_type,
    id_no,
    face_photo = null,
    is_deleted,
    created_by,
    ...rest
  } = o;
  await insertBinding(
    db,
    {
      cardId: card_id,
      memberId: member_id,
      name: name ?? `Holder ${uniq()}`,
      phone: phone ?? randomMobile(),
      idType: id_type ?? 1,
      idNo: id_no ?? uniq('ID').slice(0, 32).toUpperCase(),
      facePhoto: face_photo,
    },
    authoredBy(created_by),
  );
  // insertBinding answers no id: the newest binding of the card is the one just added.
  const { id } = await db
    .selectFrom('card_binding')
    .select('id')
    .where('card_id', '=', card_id)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();
  if (is_deleted) await endBinding(db, id, authoredBy(created_by));
  if (anySet(rest)) await db.updateTable('card_binding').set(rest).where('id', '=', id).execute();
  return id;
}

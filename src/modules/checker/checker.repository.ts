import { sql, type Selectable } from 'kysely';
import type { Executor } from '../../platform/db/executor.js';
import type { TicketsSkuTable } from '../../db/tables/catalog.js';
import { formatDateTime } from '../../platform/time.js';
import type { CheckerConfig, SkuEntranceDto, TicketsSku } from './checker.schemas.js';

/** What a verifier may check at and how its app is set up: the reads behind checkerLogin. */

const idText = (v: number | null) => (v == null ? null : String(v));
/** time columns come back as text; a stored fraction of a second is not part of the wire LocalTime */
const timeText = (v: string | null) => (v == null ? null : v.slice(0, 8));

export interface CheckerOrgNames {
  merchantName: string | null;
  shopName: string | null;
}

export async function findCheckerOrgNames(db: Executor, checkerId: number): Promise<CheckerOrgNames> {
  const r = await db
    .selectFrom('checker')
    .leftJoin('merchant', 'merchant.id', 'checker.merchant_id')
    .leftJoin('shop', 'shop.id', 'checker.shop_id')
    .select(['merchant.name as merchantName', 'shop.name as shopName'])
    .where('checker.id', '=', checkerId)
    .executeTakeFirst();
  return { merchantName: r?.merchantName ?? null, shopName: r?.shopName ?? null };
}

/**
 * Every SKU the verifier is related to, with the entrances it may check at: a relation without an
 * entrance stands for all entrances of its SKU. Deleted SKUs and entrances are left out.
 */
export async function listCheckerSkus(db: Executor, checkerId: number): Promise<SkuEntranceDto[]> {
  const rows = await db
    .selectFrom('checker_relation as r')
    .innerJoin('sku as s', (j) => j.onRef('s.id', '=', 'r.sku_id').on('s.is_deleted', '=', false))
    .leftJoin('sku_entrance as e', (j) =>
      j
        .onRef('e.sku_id', '=', 'r.sku_id')
        .on('e.is_deleted', '=', false)
        .on((eb) => eb.or([eb('r.entrance_id', 'is', null), eb('e.id', '=', eb.ref('r.entrance_id'))])),
    )
    .select([
      's.id as skuId',
      's.sku_name as skuName',
      'e.id as entranceId',
      'e.entrance_name as entranceName',
      'e.merchant_id as merchantId',
      'e.shop_id as shopId',
      'e.goods_id as goodsId',
      'e.created_by as createdBy',
      'e.created_at as createdAt',
    ])
    .where('r.checker_id', '=', checkerId)
    .orderBy('s.id')
    .orderBy('e.id')
    .execute();
  const skus = new Map<number, SkuEntranceDto>();
  const seen = new Set<number>();
  for (const r of rows) {
    let sku = skus.get(r.skuId);
    if (!sku) {
      sku = { id: r.skuId, skuName: r.skuName, entrenceList: [] };
      skus.set(r.skuId, sku);
    }
    // An entrance reached through both a specific and an all-entrances relation appears once.
    if (r.entranceId == null || seen.has(r.entranceId)) continue;
    seen.add(r.entranceId);
    sku.entrenceList.push({
      id: r.entranceId,
      skuId: r.skuId,
      entranceName: r.entranceName ?? '',
      merchantId: r.merchantId,
      shopId: r.shopId,
      goodsId: r.goodsId,
      createdBy: idText(r.createdBy),
      createdTime: formatDateTime(r.createdAt),
    });
  }
  return [...skus.values()];
}

/** The SKUs among these whose resource (the SKU's spu) an enabled card model admits. */
export async function skusAdmittedByCardModels(db: Executor, skuIds: number[]): Promise<Set<number>> {
  if (skuIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('sku as s')
    .select('s.id')
    .where('s.id', 'in', skuIds)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('card_model_resource_rule as rr')
          .innerJoin('card_model as cm', 'cm.id', 'rr.card_model_id')
          .select('rr.id')
          .whereRef('rr.resource_id', '=', 's.goods_id')
          .where('rr.is_deleted', '=', false)
          .where('cm.status', '=', 1)
          .where('cm.is_deleted', '=', false),
      ),
    )
    .execute();
  return new Set(rows.map((r) => r.id));
}

function toTicketsSku(r: Selectable<TicketsSkuTable>): TicketsSku {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    shopId: r.shop_id,
    ticketsId: r.tickets_id,
    skuName: r.sku_name,
    typeId: r.type_id,
    typeInfo: r.type_info,
    stockNumType: r.stock_num_type,
    stockDateType: r.stock_date_type,
    bookType: r.book_type,
    bookTimeLimit: timeText(r.book_time_limit),
    idLimitFlag: r.id_limit_flag,
    idLimitDays: r.id_limit_days,
    idLimitNum: r.id_limit_num,
    speedInfo: r.speed_info,
    basePrice: r.base_price,
    contentWith: r.content_with,
    contentWithout: r.content_without,
    enterDemand: r.enter_demand,
    enterType: r.enter_type,
    enterChangeFlag: r.enter_change_flag,
    changePostion: r.change_postion,
    changeStart: timeText(r.change_start),
    changeEnd: timeText(r.change_end),
    enterPostion: r.enter_postion,
    enterStart: timeText(r.enter_start),
    enterEnd: timeText(r.enter_end),
    refundType: r.refund_type,
    refundDays: r.refund_days,
    refundTime: timeText(r.refund_time),
    refundPolicy: r.refund_policy,
    remark: r.remark,
    receiptPolicy: r.receipt_policy,
    isDeleted: r.is_deleted,
    status: String(r.status),
    createdBy: idText(r.created_by),
    createdTime: formatDateTime(r.created_at),
    updatedBy: idText(r.updated_by),
    updatedTime: formatDateTime(r.updated_at),
  };
}

/** On-shelf ticket SKUs attached to these SKUs. */
export async function listOnShelfTicketsSkus(db: Executor, skuIds: number[]): Promise<TicketsSku[]> {
  if (skuIds.length === 0) return [];
  const rows = await db
    .selectFrom('tickets_sku')
    .selectAll()
    .where('sku_id', 'in', skuIds)
    .where('status', '=', 1)
    .where('is_deleted', '=', false)
    .orderBy('id')
    .execute();
  return rows.map(toTicketsSku);
}

/**
 * The settings that apply to the verifier: its own, and the defaults of its shop, its merchant and the
 * platform (settings without a verifier). Per item the most particular one wins (own, shop, merchant,
 * platform); they all travel as the verifier's (`checkerId`), in the order they were made.
 */
export async function listCheckerConfigs(db: Executor, checkerId: number): Promise<CheckerConfig[]> {
  const rows = await db
    .selectFrom('checker_config as cc')
    .innerJoin('checker as k', (j) => j.on('k.id', '=', checkerId))
    .select([
      'cc.id',
      'cc.checker_id',
      'cc.merchant_id',
      'cc.shop_id',
      'cc.config_type',
      'cc.item',
      'cc.value',
      'cc.remark',
      'cc.is_deleted',
      'cc.created_at',
    ])
    .where('cc.is_deleted', '=', false)
    .where((eb) =>
      eb.or([
        eb('cc.checker_id', '=', checkerId),
        // Written as the default index's expressions, so its (merchant, shop) prefix finds them.
        eb.and([
          eb('cc.checker_id', 'is', null),
          eb(sql`coalesce(cc.merchant_id, 0)`, 'in', [sql`0`, sql`k.merchant_id`]),
          eb(sql`coalesce(cc.shop_id, 0)`, 'in', [sql`0`, sql`coalesce(k.shop_id, 0)`]),
        ]),
      ]),
    )
    .orderBy('cc.id')
    .execute();
  const rank = (r: (typeof rows)[number]) =>
    r.checker_id !== null ? 3 : r.shop_id !== null ? 2 : r.merchant_id !== null ? 1 : 0;
  const byItem = new Map<string, (typeof rows)[number]>();
  const unkeyed: typeof rows = [];
  for (const r of rows) {
    if (r.item === null) unkeyed.push(r);
    else if (!byItem.has(r.item) || rank(byItem.get(r.item)!) < rank(r)) byItem.set(r.item, r);
  }
  return [...byItem.values(), ...unkeyed]
    .sort((a, b) => a.id - b.id)
    .map((r) => ({
      id: r.id,
      checkerId,
      configType: r.config_type,
      item: r.item,
      value: r.value,
      remark: r.remark,
      isDeleted: r.is_deleted,
      createdTime: formatDateTime(r.created_at),
    }));
}

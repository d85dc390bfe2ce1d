import { sql } from 'kysely';
import { codeText } from '../../platform/http/schemas.js';
import type { Scope } from '../../platform/auth/permissions.js';
import type { DateRange } from '../../platform/date-range.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { formatDateTime } from '../../platform/time.js';
import type { Card, CardPageQuery } from './card.schemas.js';
import { cardVisible } from './card-scope.js';

/** A card whose expiry has passed reads as expired (4) at once, before the expiry job has stored it. */
const effectiveStatus = sql<number>`case when c.status in (1, 2) and c.expire_time < now() then 4 else c.status end`;

function cardQuery(db: Executor) {
  return db
    .selectFrom('card as c')
    .innerJoin('card_model as cm', 'cm.id', 'c.card_model_id')
    .leftJoin('card_batch as b', 'b.id', 'c.batch_id')
    .leftJoin('merchant as m', 'm.id', 'c.merchant_id')
    .leftJoin('shop as s', 's.id', 'c.shop_id')
    .leftJoin('admin_user as u', 'u.id', 'c.active_by')
    .leftJoin('card_binding as h', (j) => j.onRef('h.card_id', '=', 'c.id').on('h.is_deleted', '=', false))
    .select([
      'c.id',
      'c.card_number',
      'c.card_model_id',
      'cm.name as model_name',
      'cm.merchant_id as model_merchant_id',
      'cm.validity_months',
      'cm.status as model_status',
      'c.batch_id',
      'b.batch_no',
      effectiveStatus.as('status'),
      'c.status as stored_status',
      'c.medium',
      'c.channel',
      'c.merchant_id',
      'm.name as merchant_name',
      'c.shop_id',
      's.name as shop_name',
      'c.active_by',
      sql<string | null>`coalesce(u.nickname, u.username)`.as('active_by_name'),
      'c.is_donation',
      'c.active_time',
      'c.expire_time',
      'c.order_no',
      'c.status_reason',
      'c.created_at',
      sql<boolean>`coalesce(c.expire_time < now(), false)`.as('expired'),
      'h.id as binding_id',
      'h.name as holder_name',
      'h.phone as holder_phone',
      'h.id_type as holder_id_type',
      'h.id_no as holder_id_no',
      'h.face_photo as holder_face',
      'h.member_id as holder_member',
      'h.bound_at',
    ])
    .where('c.is_deleted', '=', false);
}

type CardRow = Awaited<ReturnType<ReturnType<typeof cardQuery>['executeTakeFirstOrThrow']>>;

/** A card as the service reasons about it: the wire shape plus what its rules read. */
export interface CardState extends Card {
  modelMerchantId: number | null;
  modelStatus: number;
  validityMonths: number;
  storedStatus: number;
  bindingId: number | null;
  /** the expiry has passed (whatever the status) */
  expired: boolean;
}

function toCard(r: CardRow): CardState {
  return {
    id: r.id,
    cardNumber: r.card_number,
    cardModelId: r.card_model_id,
    cardModelName: r.model_name,
    batchId: r.batch_id,
    batchNo: r.batch_no,
    status: Number(r.status),
    activated: r.active_time !== null,
    medium: r.medium,
    channel: codeText(r.channel),
    merchantId: r.merchant_id,
    merchantName: r.merchant_name,
    shopId: r.shop_id,
    shopName: r.shop_name,
    activeBy: r.active_by,
    activeByName: r.active_by_name,
    isDonation: r.is_donation,
    activeTime: formatDateTime(r.active_time),
    expireTime: formatDateTime(r.expire_time),
    orderNo: r.order_no,
    statusReason: r.status_reason,
    holder:
      r.binding_id === null
        ? null
        : {
            name: r.holder_name,
            phone: r.holder_phone,
            idType: codeText(r.holder_id_type),
            idNo: r.holder_id_no,
            facePhoto: r.holder_face,
            memberId: r.holder_member,
            boundTime: formatDateTime(r.bound_at),
          },
    createdTime: formatDateTime(r.created_at),
    modelMerchantId: r.model_merchant_id,
    modelStatus: r.model_status,
    validityMonths: r.validity_months,
    storedStatus: r.stored_status,
    bindingId: r.binding_id,
    expired: r.expired,
  };
}

export function toWire(card: CardState): Card {
  const {
    modelMerchantId: _a,
    modelStatus: _b,
    validityMonths: _c,
    storedStatus: _d,
    bindingId: _e,
    expired: _f,
    ...wire
  } = card;
  return wire;
}

/** A card by id or number, its row locked for the rest of the transaction when `forUpdate`. */
export async function findCard(
  db: Executor,
  ref: { id?: number | null; cardNumber?: string | null },
  forUpdate = false,
): Promise<CardState | null> {
  if (forUpdate) {
    const lock = db.selectFrom('card').select('id');
    await (ref.id != null ? lock.where('id', '=', ref.id) : lock.where('card_number', '=', ref.cardNumber ?? ''))
      .forUpdate()
      .execute();
  }
  const q = cardQuery(db);
  const r = await (
    ref.id != null ? q.where('c.id', '=', ref.id) : q.where('c.card_number', '=', ref.cardNumber ?? '')
  ).executeTakeFirst();
  return r ? toCard(r) : null;
}

export async function pageCards(
  db: Executor,
  f: CardPageQuery,
  scope: Scope,
  range: DateRange | null,
  page: PageRequest,
): Promise<Page<Card>> {
  let q = cardQuery(db).where(cardVisible(scope));
  if (f.cardModelId != null) q = q.where('c.card_model_id', '=', f.cardModelId);
  if (f.status != null) q = q.where(effectiveStatus, '=', f.status);
  if (f.cardNumber?.trim())
    q = q.where('c.card_number', 'like', `${f.cardNumber.trim().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`);
  if (f.holderPhone) q = q.where('h.phone', '=', f.holderPhone);
  if (f.idNo) q = q.where('h.id_no', '=', f.idNo.trim().toUpperCase());
  if (f.batchId != null) q = q.where('c.batch_id', '=', f.batchId);
  if (f.medium != null) q = q.where('c.medium', '=', f.medium);
  if (f.channel != null) q = q.where('c.channel', '=', f.channel);
  if (f.merchantId != null) q = q.where('c.merchant_id', '=', f.merchantId);
  if (f.shopId != null) q = q.where('c.shop_id', '=', f.shopId);
  if (f.activated != null) q = q.where('c.active_time', f.activated ? 'is not' : 'is', null);
  if (range) q = q.where('c.active_time', '>=', range.start).where('c.active_time', '<=', range.end);
  return paginate(db, q.orderBy('c.id', 'desc'), page, (r) => toWire(toCard(r)));
}

export interface Activation {
  channel: number;
  activeTime: Date;
  expireTime: Date | null;
  validityMonths: number;
  merchantId: number | null;
  shopId: number | null;
  activeBy: number;
  isDonation: boolean;
  orderNo: string | null;
}

/** Sets the card sold; without an expiry it ends the model's validity months later (session time zone). */
export async function activateCard(db: Executor, id: number, a: Activation, by: number): Promise<void> {
  await db
    .updateTable('card')
    .set({
      channel: a.channel,
      active_time: a.activeTime,
      expire_time:
        a.expireTime ?? sql<Date>`${a.activeTime}::timestamptz + make_interval(months => ${a.validityMonths})`,
      merchant_id: a.merchantId,
      shop_id: a.shopId,
      active_by: a.activeBy,
      is_donation: a.isDonation,
      order_no: a.orderNo,
      updated_by: by,
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .execute();
}

export async function setCardStatus(
  db: Executor,
  id: number,
  status: number,
  reason: string | null,
  by: number,
): Promise<void> {
  await db
    .updateTable('card')
    .set({ status, status_reason: reason, updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export const BINDING_INDEX = 'card_binding_card_uq';

export interface NewBinding {
  cardId: number;
  memberId: number | null;
  name: string;
  phone: string;
  idType: number;
  idNo: string;
  facePhoto: string | null;
}

export async function insertBinding(db: Executor, b: NewBinding, by: number): Promise<void> {
  await db
    .insertInto('card_binding')
    .values({
      card_id: b.cardId,
      member_id: b.memberId,
      name: b.name,
      phone: b.phone,
      id_type: b.idType,
      id_no: b.idNo,
      face_photo: b.facePhoto,
      created_by: by,
      updated_by: by,
    })
    .execute();
}

export async function endBinding(db: Executor, bindingId: number, by: number): Promise<void> {
  await db
    .updateTable('card_binding')
    .set({ is_deleted: true, updated_by: by, updated_at: new Date() })
    .where('id', '=', bindingId)
    .execute();
}

/** The living member whose mobile is this phone (the newest, should several share it). */
export async function memberIdByMobile(db: Executor, phone: string): Promise<number | null> {
  const r = await db
    .selectFrom('member')
    .select('id')
    .where('mobile', '=', phone)
    .where('is_deleted', '=', false)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return r?.id ?? null;
}

export async function staffExists(db: Executor, id: number): Promise<boolean> {
  const r = await db
    .selectFrom('admin_user')
    .select('id')
    .where('id', '=', id)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  return r !== undefined;
}

export async function findShopOwner(db: Executor, shopId: number): Promise<number | null> {
  const r = await db
    .selectFrom('shop')
    .select('merchant_id')
    .where('id', '=', shopId)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  return r?.merchant_id ?? null;
}

/**
 * Marks up to `limit` cards whose expiry has passed as expired (4). Rows another transaction holds
 * are skipped, so instances running this at the same moment share the work instead of waiting.
 */
export async function expireDueCards(db: Executor, now: Date, limit: number): Promise<number> {
  const r = await sql`
    update card set status = 4, updated_at = ${now}
    where id in (
      select id from card where status in (1, 2) and expire_time < ${now} order by expire_time limit ${limit} for update skip locked
    )`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

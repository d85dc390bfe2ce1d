import { sql } from 'kysely';
import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { formatDateTime } from '../../platform/time.js';
import type { Batch, BatchPageQuery } from './card.schemas.js';
import { cardVisible } from './card-scope.js';

function batchQuery(db: Executor) {
  return db
    .selectFrom('card_batch as c')
    .innerJoin('card_model as cm', 'cm.id', 'c.card_model_id')
    .leftJoin('merchant as m', 'm.id', 'c.merchant_id')
    .leftJoin('shop as s', 's.id', 'c.shop_id')
    .select([
      'c.id',
      'c.batch_no',
      'c.card_model_id',
      'cm.name as model_name',
      'cm.merchant_id as model_merchant_id',
      'c.medium',
      'c.card_count',
      'c.prefix',
      'c.merchant_id',
      'm.name as merchant_name',
      'c.shop_id',
      's.name as shop_name',
      'c.remark',
      'c.created_by',
      'c.created_at',
    ]);
}

type BatchRow = Awaited<ReturnType<ReturnType<typeof batchQuery>['executeTakeFirstOrThrow']>>;

export interface BatchState extends Batch {
  modelMerchantId: number | null;
}

function toBatch(r: BatchRow): BatchState {
  return {
    id: r.id,
    batchNo: r.batch_no,
    cardModelId: r.card_model_id,
    cardModelName: r.model_name,
    medium: r.medium,
    cardCount: r.card_count,
    prefix: r.prefix,
    merchantId: r.merchant_id,
    merchantName: r.merchant_name,
    shopId: r.shop_id,
    shopName: r.shop_name,
    remark: r.remark,
    createdBy: r.created_by,
    createdTime: formatDateTime(r.created_at),
    modelMerchantId: r.model_merchant_id,
  };
}

export const toBatchWire = ({ modelMerchantId: _m, ...batch }: BatchState): Batch => batch;

export async function findBatch(db: Executor, id: number): Promise<BatchState | null> {
  const r = await batchQuery(db).where('c.id', '=', id).executeTakeFirst();
  return r ? toBatch(r) : null;
}

/** The next id of card_batch, taken before the insert so the batch number can carry it. */
export async function nextBatchId(db: Executor): Promise<number> {
  const r = await sql<{ id: number }>`select nextval(pg_get_serial_sequence('card_batch', 'id'))::bigint as id`.execute(
    db,
  );
  return Number(r.rows[0].id);
}

export interface NewBatch {
  id: number;
  batchNo: string;
  cardModelId: number;
  medium: number;
  count: number;
  prefix: string;
  merchantId: number | null;
  shopId: number | null;
  remark: string | null;
}

export async function insertBatch(db: Executor, b: NewBatch, by: number): Promise<void> {
  await db
    .insertInto('card_batch')
    .values({
      id: b.id,
      batch_no: b.batchNo,
      card_model_id: b.cardModelId,
      medium: b.medium,
      card_count: b.count,
      prefix: b.prefix,
      merchant_id: b.merchantId,
      shop_id: b.shopId,
      remark: b.remark,
      created_by: by,
      updated_by: by,
    })
    .execute();
}

/**
 * Inserts cards of the batch with these numbers in one statement (one array parameter, so any count
 * fits); numbers already taken are skipped. Answers how many were inserted.
 */
export async function insertCardNumbers(db: Executor, b: NewBatch, numbers: string[], by: number): Promise<number> {
  const r = await sql`
    insert into card (card_number, card_model_id, batch_id, medium, status, merchant_id, shop_id, created_by, updated_by)
    select n, ${b.cardModelId}, ${b.id}, ${b.medium}, 1, ${b.merchantId}, ${b.shopId}, ${by}, ${by} from unnest(${numbers}::varchar[]) as n
    on conflict (card_number) do nothing`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

export async function pageBatches(
  db: Executor,
  f: BatchPageQuery,
  scope: Scope,
  page: PageRequest,
): Promise<Page<Batch>> {
  let q = batchQuery(db).where(cardVisible(scope));
  if (f.cardModelId != null) q = q.where('c.card_model_id', '=', f.cardModelId);
  if (f.medium != null) q = q.where('c.medium', '=', f.medium);
  if (f.batchNo?.trim()) q = q.where('c.batch_no', '=', f.batchNo.trim());
  return paginate(db, q.orderBy('c.id', 'desc'), page, (r) => toBatchWire(toBatch(r)));
}

export interface ExportRow {
  id: number;
  cardNumber: string;
  status: number;
  activeTime: Date | null;
}

/** The batch's cards after `afterId`, by id (keyset batches of the export). */
export async function batchCards(db: Executor, batchId: number, afterId: number, limit: number): Promise<ExportRow[]> {
  const rows = await db
    .selectFrom('card')
    .select(['id', 'card_number', 'status', 'active_time'])
    .where('batch_id', '=', batchId)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, cardNumber: r.card_number, status: r.status, activeTime: r.active_time }));
}

import { sql, type Selectable } from 'kysely';
import type { EstimationDetailTable, EstimationSheetTable } from '../../db/tables/settlement.js';
import type { DateRange } from '../../platform/date-range.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import { containsPattern, keywordsCondition } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { formatDateTime } from '../../platform/time.js';
import type { ResourceDetail } from './settlement-calc.js';
import { detailColumns, toDetailRecord, type DetailRecord } from './settlement-detail.repository.js';
import { toPeriodFigures, type PeriodFigures } from './settlement.repository.js';
import type { EstimationPageItem, EstimationPageQuery } from './estimation.schemas.js';

/** Persisted estimation sheets and their details (docs/domain.md §1, §3). */

/** A submitted estimation sheet. Money in cents. */
export interface SheetRecord extends PeriodFigures {
  id: number;
  estimationNo: string;
  sceneryNum: number;
  /** the highest check id the calculation saw */
  checkWatermark: number;
  createdAt: Date;
}

export interface EstimationDetailRecord extends DetailRecord {
  sheetId: number;
  virtualId: number;
}

function toSheet(r: Selectable<EstimationSheetTable>): SheetRecord {
  return {
    id: r.id,
    estimationNo: r.estimation_no,
    sceneryNum: r.scenery_num,
    checkWatermark: Number(r.check_watermark),
    createdAt: r.created_at,
    // last: fields after a spread make V8 build each object a map of its own (docs/adr/0079-objects-built-by-spreading-avoided-in-hot-code.md)
    ...toPeriodFigures(r),
  };
}

const toEstimationDetail = (r: Selectable<EstimationDetailTable>): EstimationDetailRecord =>
  Object.assign(toDetailRecord(r), { sheetId: r.sheet_id, virtualId: r.virtual_id });

export const SHEET_PKEY = 'estimation_sheet_pkey';

export async function nextEstimationId(db: Executor): Promise<number> {
  const r = await sql<{ id: string | number }>`select nextval('estimation_sheet_id_seq') as id`.execute(db);
  return Number(r.rows[0].id);
}

/**
 * `n` ids of `estimation_detail`'s own sequence, ascending: a calculation's details take them when
 * calculated and keep them when submitted, so ids never repeat across calculations. Sequence values
 * are never handed out twice, so concurrent calculations need no lock.
 */
export async function nextDetailIds(db: Executor, n: number): Promise<number[]> {
  if (n === 0) return [];
  const r = await sql<{ id: string | number }>`
    select nextval(pg_get_serial_sequence('estimation_detail', 'id')) as id from generate_series(1, ${n}::int)`.execute(
    db,
  );
  return r.rows.map((row) => Number(row.id)).sort((a, b) => a - b);
}

export async function findCardModel(db: Executor, id: number): Promise<{ id: number; name: string } | null> {
  const r = await db
    .selectFrom('card_model')
    .select(['id', 'name'])
    .where('id', '=', id)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  return r ?? null;
}

/** Cards of the model activated within the range (getEstimationCardIssueNum). */
export async function countIssued(db: Executor, cardModelId: number, range: DateRange): Promise<number> {
  const r = await db
    .selectFrom('card')
    .select(sql<string | number>`count(*)`.as('n'))
    .where('card_model_id', '=', cardModelId)
    .where('is_deleted', '=', false)
    .where('active_time', '>=', range.start)
    .where('active_time', '<=', range.end)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function findSheet(db: Executor, id: number): Promise<SheetRecord | null> {
  const r = await db.selectFrom('estimation_sheet').selectAll().where('id', '=', id).executeTakeFirst();
  return r ? toSheet(r) : null;
}

export async function findDetail(db: Executor, id: number): Promise<EstimationDetailRecord | null> {
  const r = await db.selectFrom('estimation_detail').selectAll().where('id', '=', id).executeTakeFirst();
  return r ? toEstimationDetail(r) : null;
}

export interface NewSheet {
  id: number;
  estimationNo: string;
  cardModelId: number;
  cardModelName: string;
  start: Date;
  end: Date;
  issueNum: number;
  profit: number;
  totalAmount: number;
  checkNum: number;
  maxCheckId: number;
  /** each with the id taken at calculation time (nextDetailIds) */
  details: Array<ResourceDetail & { id: number }>;
}

export async function insertSheet(db: Executor, s: NewSheet, by: number): Promise<void> {
  await db
    .insertInto('estimation_sheet')
    .values({
      id: s.id,
      estimation_no: s.estimationNo,
      card_model_id: s.cardModelId,
      card_model_name: s.cardModelName,
      start_time: s.start,
      end_time: s.end,
      issue_num: s.issueNum,
      profit: s.profit,
      total_amount: s.totalAmount,
      check_num: s.checkNum,
      scenery_num: s.details.length,
      check_watermark: s.maxCheckId,
      created_by: by,
      updated_by: by,
    })
    .execute();
  if (s.details.length) {
    await db
      .insertInto('estimation_detail')
      .values(s.details.map((d, i) => ({ ...detailColumns(d, by), id: d.id, sheet_id: s.id, virtual_id: i + 1 })))
      .execute();
  }
}

function toPageItem(r: SheetRecord): EstimationPageItem {
  return {
    id: r.id,
    estimationNo: r.estimationNo,
    cardModelId: r.cardModelId,
    cardModelName: r.cardModelName,
    startTime: formatDateTime(r.startTime)!,
    endTime: formatDateTime(r.endTime)!,
    sceneryNum: r.sceneryNum,
    totalAmount: r.totalAmount,
    issueNum: r.issueNum,
    profit: r.profit,
    checkNum: r.checkNum,
    createdTime: formatDateTime(r.createdAt),
  };
}

export function pageSheets(
  db: Executor,
  f: EstimationPageQuery,
  created: DateRange | null,
  page: PageRequest,
): Promise<Page<EstimationPageItem>> {
  let q = db.selectFrom('estimation_sheet').selectAll();
  if (f.estimationNo?.trim()) q = q.where('estimation_no', 'ilike', containsPattern(f.estimationNo.trim()));
  if (f.cardModelName?.trim()) q = q.where('card_model_name', 'ilike', containsPattern(f.cardModelName.trim()));
  if (created) q = q.where('created_at', '>=', created.start).where('created_at', '<=', created.end);
  const kw = keywordsCondition(f.keywords, ['estimation_sheet.estimation_no', 'estimation_sheet.card_model_name']);
  if (kw) q = q.where(kw);
  return paginate(db, q.orderBy('created_at', 'desc').orderBy('id', 'desc'), page, (r) => toPageItem(toSheet(r)));
}

import { sql, type Selectable } from 'kysely';
import { batchedRead } from '../../platform/db/batched-read.js';
import type { Executor } from '../../platform/db/executor.js';
import { compiledOnce, preparedAs } from '../../platform/db/prepared.js';
import type { ReferenceCheck } from '../../platform/db/references.js';
import type { RegionTable } from '../../db/tables/region.js';
import type { Region } from './region.schemas.js';

export interface RegionValues {
  name: string;
  parentId: number;
  shortName: string | null;
  levelType: number;
  cityCode: string | null;
  zipCode: string | null;
  mergerName: string | null;
  lng: number | null;
  lat: number | null;
  pinYin: string | null;
}

const num = (v: string | null) => (v === null ? null : Number(v));

function toRegion(r: Selectable<RegionTable>): Region {
  return {
    id: r.id,
    name: r.name,
    parentId: r.parent_id,
    shortName: r.short_name,
    levelType: r.level_type,
    cityCode: r.city_code,
    zipCode: r.zip_code,
    mergerName: r.merger_name,
    lng: num(r.lng),
    lat: num(r.lat),
    pinYin: r.pin_yin,
  };
}

function toColumns(v: RegionValues) {
  return {
    name: v.name,
    parent_id: v.parentId,
    short_name: v.shortName,
    level_type: v.levelType,
    city_code: v.cityCode,
    zip_code: v.zipCode,
    merger_name: v.mergerName,
    lng: v.lng,
    lat: v.lat,
    pin_yin: v.pinYin,
  };
}

// getRegion's read: the regions asked for in one turn of the event loop, in one statement built once.
const regionsByIds = compiledOnce(
  ['ids'],
  (p) =>
    sql<
      Selectable<RegionTable>
    >`${preparedAs('regions-by-ids')}select * from region where id = any(${p.ids}::bigint[])`,
);
const regionRows = batchedRead<number, Selectable<RegionTable>>(async (db, ids) =>
  (await regionsByIds(db, { ids })).rows.map((r) => [r.id, r] as const),
);

export async function findRegion(db: Executor, id: number): Promise<Region | null> {
  const r = await regionRows(db, id, undefined);
  return r ? toRegion(r) : null;
}

export async function listAllRegions(db: Executor): Promise<Region[]> {
  const rows = await db.selectFrom('region').selectAll().orderBy('id').execute();
  return rows.map(toRegion);
}

export async function insertRegion(db: Executor, v: RegionValues, by: number): Promise<Region> {
  const r = await db
    .insertInto('region')
    .values({ ...toColumns(v), created_by: by, updated_by: by })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toRegion(r);
}

/** Seeds with fixed GB/T 2260 ids, in batches so one statement stays well below the parameter limit. */
export async function insertRegionsWithIds(db: Executor, rows: Array<RegionValues & { id: number }>): Promise<void> {
  for (let i = 0; i < rows.length; i += 1000) {
    await db
      .insertInto('region')
      .values(rows.slice(i, i + 1000).map((r) => ({ id: r.id, ...toColumns(r) })))
      .execute();
  }
}

export async function updateRegion(db: Executor, id: number, v: RegionValues, by: number): Promise<boolean> {
  const r = await db
    .updateTable('region')
    .set({ ...toColumns(v), updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function deleteRegion(db: Executor, id: number): Promise<boolean> {
  const r = await db.deleteFrom('region').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export async function hasChildren(db: Executor, id: number): Promise<boolean> {
  const r = await db.selectFrom('region').select('id').where('parent_id', '=', id).limit(1).executeTakeFirst();
  return r !== undefined;
}

export async function countRegions(db: Executor): Promise<number> {
  const r = await db
    .selectFrom('region')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * A region, locked for the rest of the transaction: a child cannot be added while it is deleted, and
 * an update reads what it keeps under the lock.
 */
export async function lockRegion(db: Executor, id: number): Promise<Region | null> {
  const r = await db.selectFrom('region').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  return r ? toRegion(r) : null;
}

/** The living records that store a region id; any of them refuses the region's deletion. */
export const REGION_REFERENCES: readonly ReferenceCheck[] = [
  { label: ['shop', 'shops'], table: 'shop', column: 'province_id', living: true },
  { label: ['shop', 'shops'], table: 'shop', column: 'city_id', living: true },
  { label: ['shop', 'shops'], table: 'shop', column: 'district_id', living: true },
  { label: ['hotel', 'hotels'], table: 'hotel_info', column: 'province_id', living: true },
  { label: ['hotel', 'hotels'], table: 'hotel_info', column: 'city_id', living: true },
  { label: ['hotel', 'hotels'], table: 'hotel_info', column: 'district_id', living: true },
  { label: ['member', 'members'], table: 'member', column: 'area_id', living: true },
];

import { sql } from 'kysely';
import type { DB } from '../../db/types.js';
import { conflict, type AppError } from '../errors.js';
import type { Executor } from './executor.js';

/**
 * "Deleting something still referenced answers 409 naming what refers to it": the lookups behind
 * that rule. A service lists the records that may point at the one it deletes, asks which do (inside
 * its transaction, after locking the record, so a reference added meanwhile is seen), and refuses
 * with `stillReferenced` when any does.
 */
export interface ReferenceCheck {
  /** one referring record and several, as the message names them: ['SKU', 'SKUs'] */
  label: readonly [singular: string, plural: string];
  table: keyof DB & string;
  /** the referring column; with `contains`, an array column holding the id */
  column: string;
  contains?: boolean;
  /** only rows that are not logically deleted count */
  living?: boolean;
  /** and only rows where this column holds this value (e.g. a template's product scope), or with notNull any value */
  where?: { column: string; equals: number | string | boolean } | { column: string; notNull: true };
}

export interface Reference {
  label: readonly [string, string];
  count: number;
  /** the lowest ids of the referring rows (at most SHOWN_IDS) */
  ids: number[];
}

const SHOWN_IDS = 5;

/** The checks that find rows pointing at `id`, each with its count and first ids; empty when none does. */
export async function findReferences(
  db: Executor,
  id: number,
  checks: readonly ReferenceCheck[],
): Promise<Reference[]> {
  const found: Reference[] = [];
  for (const check of checks) {
    const column = sql.ref(check.column);
    const match = check.contains ? sql`${id} = any(${column})` : sql`${column} = ${id}`;
    const living = check.living ? sql` and not is_deleted` : sql``;
    const extra = !check.where
      ? sql``
      : 'equals' in check.where
        ? sql` and ${sql.ref(check.where.column)} = ${check.where.equals}`
        : sql` and ${sql.ref(check.where.column)} is not null`;
    const r = await sql<{ id: number | string; n: number | string }>`
      select id, count(*) over () as n from ${sql.table(check.table)} where ${match}${living}${extra} order by id limit ${SHOWN_IDS}`.execute(
      db,
    );
    if (r.rows.length > 0)
      found.push({ label: check.label, count: Number(r.rows[0].n), ids: r.rows.map((row) => Number(row.id)) });
  }
  return found;
}

/** "2 SKUs (ids 5, 7)", "1 SKU (id 3)", "9 SKUs (ids 1, 2, 3, 4, 5, …)" */
export function describeReference(ref: Reference): string {
  const noun = ref.count === 1 ? ref.label[0] : ref.label[1];
  const more = ref.count > ref.ids.length ? ', …' : '';
  return `${ref.count} ${noun} (${ref.ids.length === 1 && ref.count === 1 ? 'id' : 'ids'} ${ref.ids.join(', ')}${more})`;
}

/** 409: "the resource is still referenced by 2 SKUs (ids 5, 7) and 1 card-model rule (id 3): …" */
export function stillReferenced(subject: string, refs: readonly Reference[]): AppError {
  const parts = refs.map(describeReference);
  const list = parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}` : parts[0];
  return conflict(`${subject} is still referenced by ${list}: remove or move those first`);
}

/** Refuses with 409 when any of the checks finds a row pointing at `id`. */
export async function assertUnreferenced(
  db: Executor,
  subject: string,
  id: number,
  checks: readonly ReferenceCheck[],
): Promise<void> {
  const refs = await findReferences(db, id, checks);
  if (refs.length > 0) throw stillReferenced(subject, refs);
}

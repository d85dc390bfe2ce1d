import type { Selectable } from 'kysely';
import type { CodegenColumnTable } from '../../db/tables/codegen.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import { containsPattern, keywordsCondition } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { LIST_MAX_ROWS } from '../../platform/http/schemas.js';
import type { CodegenColumn, CodegenColumnAdd, CodegenColumnFilter } from './codegen.schemas.js';

export const COLUMN_NAME_INDEX = 'codegen_column_name_uq';

function toColumn(r: Selectable<CodegenColumnTable>): CodegenColumn {
  return {
    id: r.id,
    tableId: r.table_id,
    columnName: r.column_name,
    dataType: r.data_type,
    columnComment: r.column_comment,
    nullable: r.nullable,
    primaryKey: r.primary_key,
    autoIncrement: r.auto_increment,
    ordinalPosition: r.ordinal_position,
    javaType: r.java_type,
    javaField: r.java_field,
    dictType: r.dict_type,
    example: r.example,
    createOperation: r.create_operation,
    updateOperation: r.update_operation,
    listOperation: r.list_operation,
    listOperationCondition: r.list_operation_condition,
    listOperationResult: r.list_operation_result,
    htmlType: r.html_type,
  };
}

function toColumns(v: CodegenColumnAdd) {
  return {
    table_id: v.tableId,
    column_name: v.columnName,
    data_type: v.dataType,
    column_comment: v.columnComment,
    nullable: v.nullable,
    primary_key: v.primaryKey,
    auto_increment: v.autoIncrement,
    ordinal_position: v.ordinalPosition,
    java_type: v.javaType,
    java_field: v.javaField,
    dict_type: v.dictType ?? null,
    example: v.example ?? null,
    create_operation: v.createOperation,
    update_operation: v.updateOperation,
    list_operation: v.listOperation,
    list_operation_condition: v.listOperationCondition,
    list_operation_result: v.listOperationResult,
    html_type: v.htmlType,
  };
}

export async function findColumn(db: Executor, id: number, forUpdate = false): Promise<CodegenColumn | null> {
  let q = db.selectFrom('codegen_column').selectAll().where('id', '=', id);
  if (forUpdate) q = q.forUpdate();
  const r = await q.executeTakeFirst();
  return r ? toColumn(r) : null;
}

export async function insertColumn(db: Executor, v: CodegenColumnAdd, by: number): Promise<CodegenColumn> {
  const r = await db
    .insertInto('codegen_column')
    .values({ ...toColumns(v), created_by: by, updated_by: by })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toColumn(r);
}

export async function updateColumn(db: Executor, id: number, v: CodegenColumnAdd, by: number): Promise<void> {
  await db
    .updateTable('codegen_column')
    .set({ ...toColumns(v), updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export async function deleteColumn(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('codegen_column').where('id', '=', id).execute();
}

function filtered(db: Executor, f: CodegenColumnFilter) {
  let q = db.selectFrom('codegen_column').selectAll();
  if (f.tableId != null) q = q.where('table_id', '=', f.tableId);
  if (f.columnName?.trim()) q = q.where('column_name', 'ilike', containsPattern(f.columnName.trim()));
  if (f.columnComment?.trim()) q = q.where('column_comment', 'ilike', containsPattern(f.columnComment.trim()));
  if (f.dataType) q = q.where('data_type', '=', f.dataType);
  if (f.nullable != null) q = q.where('nullable', '=', f.nullable);
  if (f.primaryKey != null) q = q.where('primary_key', '=', f.primaryKey);
  if (f.autoIncrement) q = q.where('auto_increment', '=', f.autoIncrement);
  if (f.ordinalPosition != null) q = q.where('ordinal_position', '=', f.ordinalPosition);
  if (f.javaType) q = q.where('java_type', '=', f.javaType);
  if (f.javaField) q = q.where('java_field', '=', f.javaField);
  if (f.dictType) q = q.where('dict_type', '=', f.dictType);
  if (f.example) q = q.where('example', '=', f.example);
  if (f.createOperation != null) q = q.where('create_operation', '=', f.createOperation);
  if (f.updateOperation != null) q = q.where('update_operation', '=', f.updateOperation);
  if (f.listOperation != null) q = q.where('list_operation', '=', f.listOperation);
  if (f.listOperationCondition) q = q.where('list_operation_condition', '=', f.listOperationCondition);
  if (f.listOperationResult != null) q = q.where('list_operation_result', '=', f.listOperationResult);
  if (f.htmlType) q = q.where('html_type', '=', f.htmlType);
  if (f.idList?.length) q = q.where('id', 'in', f.idList);
  const kw = keywordsCondition(f.keywords, [
    'codegen_column.column_name',
    'codegen_column.column_comment',
    'codegen_column.java_field',
  ]);
  if (kw) q = q.where(kw);
  // A table's columns in their database order.
  return q.orderBy('table_id').orderBy('ordinal_position').orderBy('id');
}

export async function listColumns(db: Executor, f: CodegenColumnFilter): Promise<CodegenColumn[]> {
  const rows = await filtered(db, f).limit(LIST_MAX_ROWS).execute();
  return rows.map(toColumn);
}

export function pageColumns(db: Executor, f: CodegenColumnFilter, page: PageRequest): Promise<Page<CodegenColumn>> {
  return paginate(db, filtered(db, f), page, toColumn);
}

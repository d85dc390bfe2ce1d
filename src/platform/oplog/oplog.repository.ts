import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db/executor.js';

export interface OperateLogEntry {
  module: string;
  action: string;
  accountKind: string | null;
  accountId: number | null;
  accountName: string | null;
  ip: string;
  userAgent: string;
  method: string;
  path: string;
  bizId: string | null;
  success: boolean;
  errcode: number;
  durationMs: number;
}

/** The columns `operateLogRow` fills, for statements that place them one by one. */
export const OPERATE_LOG_COLUMNS = [
  'module',
  'action',
  'account_kind',
  'account_id',
  'account_name',
  'ip',
  'user_agent',
  'method',
  'path',
  'biz_id',
  'success',
  'errcode',
  'duration_ms',
] as const;
export type OperateLogRow = Record<(typeof OPERATE_LOG_COLUMNS)[number], string | number | boolean | null>;

/** The operate_log columns of an entry, as every writer stores them (lengths clipped to the columns). */
export function operateLogRow(e: OperateLogEntry) {
  return {
    module: e.module,
    action: e.action,
    account_kind: e.accountKind,
    account_id: e.accountId,
    account_name: e.accountName?.slice(0, 64) ?? null,
    ip: e.ip.slice(0, 64),
    user_agent: e.userAgent.slice(0, 512),
    method: e.method,
    path: e.path.slice(0, 255),
    biz_id: e.bizId?.slice(0, 64) ?? null,
    success: e.success,
    errcode: e.errcode,
    duration_ms: e.durationMs,
  };
}

export async function insertOperateLog(db: Executor, e: OperateLogEntry): Promise<void> {
  await db.insertInto('operate_log').values(operateLogRow(e)).execute();
}

export interface LoginLogEntry {
  accountKind: string;
  accountId: number | null;
  username: string;
  ip: string;
  userAgent: string;
  success: boolean;
  errcode: number;
  message: string | null;
}

export async function insertLoginLog(db: Executor, e: LoginLogEntry): Promise<void> {
  await db
    .insertInto('login_log')
    .values({
      account_kind: e.accountKind,
      account_id: e.accountId,
      username: e.username.slice(0, 64),
      ip: e.ip.slice(0, 64),
      user_agent: e.userAgent.slice(0, 512),
      success: e.success,
      errcode: e.errcode,
      message: e.message?.slice(0, 255) ?? null,
    })
    .execute();
}

/**
 * An operate_log insert as a data-modifying CTE (`, <name> as (insert … select … from <from>)`), for a
 * statement that writes its change and the change's log row in one round trip (the check-in): the
 * operation log stays this layer's table while the row is written by the caller's statement.
 */
export function operateLogInsertCte(
  name: string,
  from: string,
  bizId: RawBuilder<unknown>,
  valueOf: (column: (typeof OPERATE_LOG_COLUMNS)[number]) => RawBuilder<unknown>,
): RawBuilder<unknown> {
  const values = OPERATE_LOG_COLUMNS.map((column) => (column === 'biz_id' ? bizId : valueOf(column)));
  return sql`, ${sql.raw(name)} as (
      insert into operate_log (${sql.join(OPERATE_LOG_COLUMNS.map((c) => sql.ref(c)))})
      select ${sql.join(values)} from ${sql.raw(from)}
    )`;
}

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
  'module', 'action', 'account_kind', 'account_id', 'account_name', 'ip', 'user_agent', 'method', 'path', 'biz_id', 'success', 'errcode', 'duration_ms',
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

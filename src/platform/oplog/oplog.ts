import type { Executor } from '../db/executor.js';
import type { Account, RequestContext } from '../http/context.js';
import { insertLoginLog, insertOperateLog, type OperateLogEntry } from './oplog.repository.js';

/**
 * Writes the operation-log row of the route's operation (docs/architecture.md §5.11). Services call it inside
 * their transaction, so the row commits or rolls back with the change; the pipeline writes it
 * afterwards for operations that have no transaction, and a failure row when the operation failed.
 */
export async function recordOperation(
  db: Executor,
  ctx: RequestContext,
  bizId?: string | number | null,
  outcome: { success: boolean; errcode: number; account?: Account | null } = { success: true, errcode: 0 },
): Promise<void> {
  // A failure row is written even when a row was written in a transaction: that one rolled back.
  if (!outcome.success && ctx.operationLog === 'in-transaction') ctx.operationLog = 'none';
  const entry = pendingOperationLog(ctx, bizId, outcome);
  if (!entry) return;
  await insertOperateLog(db, entry);
  ctx.operationLog = db.isTransaction ? 'in-transaction' : 'written';
}

/**
 * The operation-log entry of the request's operation, or null when the route logs nothing or its row is
 * written already. For a service whose whole change is one SQL statement (a data-modifying CTE, no
 * transaction round trips) and that writes the row in that statement (columns: `operateLogRow`); it
 * calls `operationLogWritten(ctx)` once the statement has succeeded. Everyone else: `recordOperation`.
 */
export function pendingOperationLog(
  ctx: RequestContext,
  bizId?: string | number | null,
  outcome: { success: boolean; errcode: number; account?: Account | null } = { success: true, errcode: 0 },
): OperateLogEntry | null {
  if (!ctx.operation || ctx.operationLog !== 'none') return null;
  const account = outcome.account ?? ctx.account;
  return {
    module: ctx.operation.module,
    action: ctx.operation.action,
    accountKind: account?.kind ?? null,
    accountId: account?.id ?? null,
    accountName: account?.name ?? null,
    ip: ctx.ip,
    userAgent: ctx.userAgent,
    method: ctx.method,
    path: ctx.path,
    bizId: bizId == null ? null : String(bizId),
    success: outcome.success,
    errcode: outcome.errcode,
    durationMs: Date.now() - ctx.startedAt,
  };
}

/** The statement that carried the `pendingOperationLog` row has committed: the pipeline writes no other. */
export function operationLogWritten(ctx: RequestContext): void {
  ctx.operationLog = 'written';
}

export async function recordLogin(
  db: Executor,
  ctx: RequestContext,
  entry: {
    accountKind: string;
    accountId: number | null;
    username: string;
    success: boolean;
    errcode: number;
    message: string | null;
  },
): Promise<void> {
  await insertLoginLog(db, { ...entry, ip: ctx.ip, userAgent: ctx.userAgent });
}

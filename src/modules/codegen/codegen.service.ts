import { scopeOf } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import { isUniqueViolation } from '../../platform/db/pg-errors.js';
import { loggedTransaction } from '../../platform/db/transaction.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import { columnNameTaken, columnNotFound, platformOnly } from './codegen.errors.js';
import * as repo from './codegen.repository.js';
import type {
  CodegenColumn,
  CodegenColumnAdd,
  CodegenColumnFilter,
  CodegenColumnPageQuery,
  CodegenColumnUpdate,
} from './codegen.schemas.js';

/** Trims the texts an operator typed; "" for the optional ones means none. */
function normalised(input: CodegenColumnAdd): CodegenColumnAdd {
  const opt = (v: string | null | undefined) => (v == null || v.trim() === '' ? null : v.trim());
  return {
    ...input,
    dataType: input.dataType.trim(),
    columnComment: input.columnComment.trim(),
    autoIncrement: input.autoIncrement.trim(),
    javaType: input.javaType.trim(),
    dictType: opt(input.dictType),
    example: opt(input.example),
  };
}

/**
 * Code-generation column definitions (spec B 2.5, 4.5). They describe tables of the platform itself,
 * so they belong to no merchant: only platform staff (with the permission) read or write them.
 */
export function createCodegenService(deps: { db: Db }) {
  const { db } = deps;

  function platform(ctx: AuthedContext): void {
    if (scopeOf(ctx.account).kind !== 'platform') throw platformOnly();
  }

  async function uniquely<T>(v: CodegenColumnAdd, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isUniqueViolation(err, repo.COLUMN_NAME_INDEX)) throw columnNameTaken(v.tableId, v.columnName);
      throw err;
    }
  }

  return {
    add(ctx: AuthedContext, input: CodegenColumnAdd): Promise<CodegenColumn> {
      platform(ctx);
      const v = normalised(input);
      return loggedTransaction(
        db,
        ctx,
        (trx) => uniquely(v, () => repo.insertColumn(trx, v, ctx.account.id)),
        (c) => c.id,
      );
    },

    async update(ctx: AuthedContext, input: CodegenColumnUpdate): Promise<void> {
      platform(ctx);
      const { id, ...rest } = input;
      const v = normalised(rest);
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          if (!(await repo.findColumn(trx, id, true))) throw columnNotFound();
          await uniquely(v, () => repo.updateColumn(trx, id, v, ctx.account.id));
        },
        () => id,
      );
    },

    async remove(ctx: AuthedContext, id: number): Promise<void> {
      platform(ctx);
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          if (!(await repo.findColumn(trx, id, true))) throw columnNotFound();
          await repo.deleteColumn(trx, id);
        },
        () => id,
      );
    },

    async get(ctx: AuthedContext, id: number): Promise<CodegenColumn> {
      platform(ctx);
      const column = await repo.findColumn(db, id);
      if (!column) throw columnNotFound();
      return column;
    },

    list(ctx: AuthedContext, filter: CodegenColumnFilter): Promise<CodegenColumn[]> {
      platform(ctx);
      return repo.listColumns(db, filter);
    },

    page(ctx: AuthedContext, query: CodegenColumnPageQuery): Promise<Page<CodegenColumn>> {
      platform(ctx);
      return repo.pageColumns(db, query, query);
    },
  };
}

export type CodegenService = ReturnType<typeof createCodegenService>;

import { scopeOf } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import { parseDateField } from '../../platform/date-range.js';
import { badRequest } from '../../platform/errors.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import { formatDateTime } from '../../platform/time.js';
import { pageConflicts } from './check-conflict.repository.js';
import type { CheckConflictRow, CheckConflictPageRequest } from './check-conflict.schemas.js';

/**
 * `queryCheckConflictPage` (docs/domain.md §4.1): the checks offline gates admitted over a bound, for the
 * operator to follow up; a merchant user sees its spots' conflicts, a shop user its shop's.
 */
export function createCheckConflictService(deps: { db: Db }) {
  return {
    page(ctx: AuthedContext, q: CheckConflictPageRequest): Promise<Page<CheckConflictRow>> {
      const start = q.startTime ? parseDateField('startTime', q.startTime) : null;
      const end = q.endTime ? parseDateField('endTime', q.endTime, true) : null;
      if (start && end && start.getTime() > end.getTime())
        throw badRequest(`endTime is invalid: it is before startTime ${formatDateTime(start)}`);
      const cardNumber = q.cardNumber?.trim() || null;
      return pageConflicts(deps.db, { skuId: q.skuId, kind: q.kind, cardNumber, start, end }, scopeOf(ctx.account), q);
    },
  };
}

export type CheckConflictService = ReturnType<typeof createCheckConflictService>;

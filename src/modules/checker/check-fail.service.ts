import { scopeOf } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import { parseDateRange } from '../../platform/date-range.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import { pageCheckFails } from './check-fail.repository.js';
import type { CheckFail, CheckFailPageRequest } from './checkin.schemas.js';

/** The failed-scan log on the manage channel: a merchant user sees its spots' refusals, a shop user its shop's. */
export function createCheckFailService(deps: { db: Db }) {
  return {
    page(ctx: AuthedContext, q: CheckFailPageRequest): Promise<Page<CheckFail>> {
      const checkTime = parseDateRange('checkTimeRange', q.checkTimeRange);
      return pageCheckFails(deps.db, { ...q, checkTime }, scopeOf(ctx.account), q);
    },
  };
}

export type CheckFailService = ReturnType<typeof createCheckFailService>;

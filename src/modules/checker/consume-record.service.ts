import type { Db } from '../../platform/db/database.js';
import { loggedTransaction } from '../../platform/db/transaction.js';
import { dayText } from '../../platform/date-range.js';
import { forbidden } from '../../platform/errors.js';
import type { AuthedContext } from '../../platform/http/context.js';
import { parseDateTime } from '../../platform/time.js';
import { notAllowedHere, recordNotFound, recordNotToday, recordNotYours } from './checkin.errors.js';
import type { CheckerCardCheckStat, CheckerConsumeRecord } from './checkin.schemas.js';
import { unfoldRevokedCheck } from '../statistics/index.js';
import * as repo from './consume-record.repository.js';
import { releaseAdmission } from './capacity.repository.js';

/**
 * The verifier's own view of check records (spec B 4.2): one record, revoking a check of today, and
 * today's counts at a scenic spot.
 */
export function createConsumeRecordService(deps: { db: Db; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  return {
    /** A record the verifier made, or one made at a SKU the verifier checks at; revoked ones show isDeleted. */
    async get(ctx: AuthedContext, id: number): Promise<CheckerConsumeRecord> {
      const record = await repo.findRecord(db, id);
      if (!record) throw recordNotFound();
      if (record.checkerId !== ctx.account.id && !(await repo.isRelatedToSku(db, ctx.account.id, record.skuId))) {
        throw forbidden('the check was made at a scenic spot you do not check at');
      }
      return repo.toWire(record);
    },

    /**
     * Revokes one of the verifier's own checks of today (logical delete) and gives its entries back to
     * the card's day, in one transaction with the operation log.
     */
    async remove(ctx: AuthedContext, id: number): Promise<void> {
      const today = dayText(now());
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const revoked = await repo.revokeCheck(trx, id, ctx.account.id, today);
          if (revoked) {
            await repo.releaseEntries(trx, revoked);
            // and to its spot's admissions, when the spot has a capacity (docs/domain.md §4.1)
            await releaseAdmission(trx, {
              skuId: revoked.skuId,
              checkDate: revoked.checkDate,
              minute: revoked.checkTime.getHours() * 60 + revoked.checkTime.getMinutes(),
              consumeNum: revoked.consumeNum,
            });
            // the statistics' check roll-up, when the check is already folded into it
            await unfoldRevokedCheck(trx, revoked);
            return;
          }
          const record = await repo.findRecord(trx, id);
          if (!record || record.isDeleted) throw recordNotFound();
          if (record.checkerId !== ctx.account.id) throw recordNotYours();
          throw recordNotToday();
        },
        () => id,
      );
    },

    /** Since the start of today (service time zone) at a SKU the verifier is related to. */
    async stat(ctx: AuthedContext, skuId: number): Promise<CheckerCardCheckStat> {
      const start = parseDateTime(dayText(now()))!;
      const end = new Date(start);
      end.setDate(end.getDate() + 1);
      const s = await repo.spotDayStat(db, ctx.account.id, skuId, { start, end });
      if (!s.allowed) throw notAllowedHere(`scenic spot ${skuId}`);
      return { dayCheckPersonNum: s.persons, dayCardCheckCnt: s.checks, checkerCardCheckCnt: s.mine };
    },
  };
}

export type ConsumeRecordService = ReturnType<typeof createConsumeRecordService>;

import { claimBindingsByPhone, markCardsBound } from '../card/index.js';
import { scopeOf } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import { advisoryLock, loggedTransaction } from '../../platform/db/transaction.js';
import { parseDateRange } from '../../platform/date-range.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import type { SmsCodes, SmsCodeTarget } from '../../platform/sms/index.js';
import { memberNotFound, phoneTaken } from './member.errors.js';
import * as repo from './member-profile.repository.js';
import type {
  MemberBindPhoneRequest,
  MemberPageRequest,
  MemberPageResponse,
  MemberResponse,
  MemberSendSmsCodeRequest,
} from './member.schemas.js';

/** The lock that serialises every change of who holds a mobile (no unique index can: see the migration). */
export const MOBILE_LOCK = 'member-mobile';

/** The member's own record and phone (spec A 4.2 getMember, bindPhone), and the staff page of members. */
export function createMemberProfileService(deps: { db: Db; codes: SmsCodes }) {
  const { db, codes } = deps;

  /** A bindPhone code belongs to the session that asked for it (stable across token refreshes) and the phone. */
  const codeTarget = (ctx: AuthedContext, phone: string): SmsCodeTarget => ({
    purpose: 'member-bind-phone',
    phone,
    sessionKey: ctx.sessionId,
  });

  return {
    async get(ctx: AuthedContext): Promise<MemberResponse> {
      const member = await repo.findMember(db, ctx.account.id);
      if (!member) throw memberNotFound();
      return member;
    },

    async sendSmsCode(ctx: AuthedContext, input: MemberSendSmsCodeRequest): Promise<void> {
      await codes.send(codeTarget(ctx, input.phone));
    },

    /**
     * Checks the code, then in one transaction: the member takes the mobile (refused when another
     * member holds it) and the card bindings made with that phone, whose cards become bound. The code
     * is spent only once that has committed, so a failed change leaves it usable.
     */
    async bindPhone(ctx: AuthedContext, input: MemberBindPhoneRequest): Promise<void> {
      const target = codeTarget(ctx, input.phone);
      await codes.verify({ ...target, code: input.smsCode });
      const memberId = ctx.account.id;
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          await advisoryLock(trx, MOBILE_LOCK, input.phone);
          if ((await repo.findMobileHolder(trx, input.phone, memberId)) !== null) throw phoneTaken();
          if (!(await repo.setMobile(trx, memberId, input.phone))) throw memberNotFound();
          const cardIds = await claimBindingsByPhone(trx, input.phone, memberId);
          await markCardsBound(trx, cardIds, memberId);
        },
        () => memberId,
      );
      await codes.consume(target);
    },

    page(ctx: AuthedContext, query: MemberPageRequest): Promise<Page<MemberPageResponse>> {
      const filter: repo.MemberPageFilter = {
        mobile: query.mobile?.trim() || null,
        created: parseDateRange('createdTimeRange', query.createdTimeRange),
        status: query.status ?? null,
        channel: query.channel ?? null,
      };
      return repo.pageMembers(db, filter, scopeOf(ctx.account), query);
    },
  };
}

export type MemberProfileService = ReturnType<typeof createMemberProfileService>;

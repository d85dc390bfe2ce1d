import { lockMemberStatus, setMemberStatus } from '../member/index.js';
import { scopeOf } from '../../platform/auth/permissions.js';
import type { TokenService } from '../../platform/auth/tokens.js';
import type { Db } from '../../platform/db/database.js';
import { loggedTransaction } from '../../platform/db/transaction.js';
import { forbidden, notFound } from '../../platform/errors.js';
import type { AuthedContext } from '../../platform/http/context.js';
import * as repo from './member-admin.repository.js';
import type { MemberAdmin, MemberStatusChange } from './member-admin.schemas.js';

/**
 * Members on the manage channel. A member belongs to no merchant: platform users see every member;
 * merchant and shop users see a member holding a card their business sold (with those cards only).
 * Only platform users enable or disable members; a disabled member's sessions end at once and its
 * mini-program login is refused until it is enabled again.
 */
export function createMemberAdminService(deps: { db: Db; tokens: TokenService }) {
  const { db, tokens } = deps;

  return {
    async get(ctx: AuthedContext, id: number): Promise<MemberAdmin> {
      const scope = scopeOf(ctx.account);
      const member = await repo.findMemberWithCards(db, id, scope);
      if (!member) throw notFound('member');
      if (scope.kind !== 'platform' && member.cards.length === 0)
        throw forbidden('the member holds no card your merchant or shop sold');
      return member;
    },

    async setStatus(ctx: AuthedContext, input: MemberStatusChange): Promise<void> {
      if (scopeOf(ctx.account).kind !== 'platform')
        throw forbidden('only platform users may enable or disable a member');
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const status = await lockMemberStatus(trx, input.id);
          if (status === null) throw notFound('member');
          if (status !== input.status) await setMemberStatus(trx, input.id, input.status, ctx.account.id);
        },
        () => input.id,
      );
      if (input.status === 0) await tokens.revokeAccount('member', input.id);
    },
  };
}

export type MemberAdminService = ReturnType<typeof createMemberAdminService>;

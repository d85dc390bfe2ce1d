import type { SessionValues } from '../../platform/auth/session-values.js';
import type { Db } from '../../platform/db/database.js';
import type { AuthedContext } from '../../platform/http/context.js';
import { bankSessionGone } from './bank.errors.js';
import { loadBankRelations, type BankRelations } from './bank-user.repository.js';

const RELATIONS = 'bank-relations';

/**
 * The organisation relations of a bank session (spec B 4.4 rule 3: bankLogin "loads organisation
 * relations"), kept as a per-session value so they survive token refreshes. A session whose value
 * is gone (an in-process store after a restart) loads them again from the database.
 */
export function createBankSessions(deps: { db: Db; sessionValues: SessionValues }) {
  const { db, sessionValues } = deps;
  return {
    async remember(session: Pick<AuthedContext, 'sessionId'>, relations: BankRelations): Promise<void> {
      await sessionValues.set(session, RELATIONS, JSON.stringify(relations));
    },

    async of(session: Pick<AuthedContext, 'sessionId' | 'account'>): Promise<BankRelations> {
      const kept = await sessionValues.get(session, RELATIONS);
      if (kept) return JSON.parse(kept) as BankRelations;
      const relations = await loadBankRelations(db, session.account.id);
      if (!relations) throw bankSessionGone();
      await sessionValues.set(session, RELATIONS, JSON.stringify(relations));
      return relations;
    },
  };
}

export type BankSessions = ReturnType<typeof createBankSessions>;

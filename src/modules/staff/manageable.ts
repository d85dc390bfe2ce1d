import { assertInScope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import type { Trx } from '../../platform/db/transaction.js';
import type { AuthedContext } from '../../platform/http/context.js';
import { firstUngrantable } from './grants.js';
import { accountAboveYou, notOnSelf, userNotFound } from './staff.errors.js';
import * as repo from './staff.repository.js';
import type { User } from './staff.schemas.js';

/**
 * Which staff accounts a caller may act on. Exported because deleteShop deletes the shop's accounts
 * and must refuse exactly what deleteUser refuses (docs/adr/0034-no-escalation-and-a-last-administrator.md).
 */

/** A living user in the caller's scope (403 outside it); locked for the rest of the transaction when `forUpdate`. */
export async function visibleUser(ctx: AuthedContext, db: Executor, id: number, forUpdate = false): Promise<User> {
  const user = await repo.findUser(db, id, forUpdate);
  if (!user) throw userNotFound();
  assertInScope(ctx.account, user);
  return user;
}

/**
 * A user the caller may change (locked): in its scope and holding no permission the caller lacks, so
 * that resetting a colleague's password or roles never lifts the caller above what it holds.
 */
export async function manageableUser(ctx: AuthedContext, trx: Trx, id: number): Promise<User> {
  const user = await visibleUser(ctx, trx, id, true);
  const beyond = firstUngrantable(ctx.account, await repo.permissionsOf(trx, id));
  if (beyond) throw accountAboveYou(beyond);
  return user;
}

/** A user the caller may delete: manageable and not the caller's own account (1_022_000_003). */
export async function deletableUser(ctx: AuthedContext, trx: Trx, id: number): Promise<User> {
  if (id === ctx.account.id) throw notOnSelf('delete');
  return manageableUser(ctx, trx, id);
}

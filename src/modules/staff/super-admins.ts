import { advisoryLock, type Trx } from '../../platform/db/transaction.js';
import { lastSuperAdmin } from './staff.errors.js';
import { countSuperAdmins } from './staff.repository.js';

/**
 * Runs a change that may take `*` away from someone (disabling or deleting a user, changing roles)
 * and refuses it when no enabled account would hold `*` afterwards. Such changes are serialised by
 * an advisory lock, so two concurrent ones cannot each leave the other as the last administrator.
 */
export async function keepingASuperAdmin<T>(trx: Trx, change: () => Promise<T>): Promise<T> {
  await advisoryLock(trx, 'super-admins', 0);
  const before = await countSuperAdmins(trx);
  const result = await change();
  if (before > 0 && (await countSuperAdmins(trx)) === 0) throw lastSuperAdmin();
  return result;
}

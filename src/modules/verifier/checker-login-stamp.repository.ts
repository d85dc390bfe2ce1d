import type { Executor } from '../../platform/db/executor.js';

/**
 * A verifier's successful login: "updates the verifier and relation records" (spec A 4.1 rule 1). The
 * checker module logs verifiers in; the rows are this module's.
 */
export async function stampCheckerLogin(
  db: Executor,
  id: number,
  login: { ip: string; at: Date; newHash: string | null },
): Promise<void> {
  await db
    .updateTable('checker')
    .set({
      last_login_at: login.at,
      last_login_ip: login.ip.slice(0, 64),
      ...(login.newHash ? { password_hash: login.newHash } : {}),
    })
    .where('id', '=', id)
    .execute();
  await db.updateTable('checker_relation').set({ last_login_at: login.at }).where('checker_id', '=', id).execute();
}

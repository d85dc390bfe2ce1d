import { inTransaction } from '../platform/db/transaction.js';
import { randomBytes } from 'node:crypto';
import type { Db } from '../platform/db/database.js';
import { hashPassword } from '../platform/auth/password.js';
import { upsertOpenApp } from '../platform/auth/open-app.repository.js';
import { UserType } from '../platform/http/context.js';
import { countRegions, insertRegionsWithIds, regionDictionaryRows } from '../modules/region/index.js';
import { countStaff, ensureRole, insertStaff } from '../modules/staff/index.js';

export const SUPER_ADMIN_ROLE = 'super_admin';

export interface SeedOptions {
  adminUsername: string;
  adminPassword: string | null;
  openApp: { appKey: string; appSecret: string } | null;
}

export interface SeedOutcome {
  regionsSeeded: number;
  /** Set only when the bootstrap admin was created just now. */
  admin: { username: string; password: string; generated: boolean } | null;
}

/**
 * Reference data on an empty database: the region dictionary and the bootstrap admin (role `*`).
 * Each part runs only when its table is empty, inside one transaction, so a restart never repeats it.
 */
export async function seedReferenceData(db: Db, opts: SeedOptions): Promise<SeedOutcome> {
  const outcome: SeedOutcome = { regionsSeeded: 0, admin: null };
  await inTransaction(db, async (trx) => {
    if ((await countRegions(trx)) === 0) {
      const rows = await regionDictionaryRows();
      await insertRegionsWithIds(trx, rows);
      outcome.regionsSeeded = rows.length;
    }
    if ((await countStaff(trx)) === 0) {
      const generated = opts.adminPassword === null;
      const password = opts.adminPassword ?? randomBytes(12).toString('base64url');
      const passwordHash = await hashPassword(password);
      const roleId = await ensureRole(trx, SUPER_ADMIN_ROLE, 'Super administrator', ['*']);
      await insertStaff(
        trx,
        {
          username: opts.adminUsername,
          passwordHash,
          nickname: 'Administrator',
          userType: UserType.PLATFORM,
          merchantId: null,
          shopId: null,
        },
        [roleId],
      );
      outcome.admin = { username: opts.adminUsername, password, generated };
    }
    if (opts.openApp) await upsertOpenApp(trx, { ...opts.openApp, name: 'bootstrap open app' });
  });
  return outcome;
}

import { TokenService } from '../../src/platform/auth/tokens.js';
import { hashPassword } from '../../src/platform/auth/password.js';
import type { Executor } from '../../src/platform/db/executor.js';
import type { Account, Channel } from '../../src/platform/http/context.js';
import { UserType } from '../../src/platform/http/context.js';
import { insertRole, insertUser, replaceUserRoles, setUserStatus } from '../../src/modules/staff/index.js';
import { loadStaffAccount } from '../../src/modules/auth/staff.repository.js';
import { authoredBy, createMerchant, createShop, uniq } from './factories.js';
import type { TestApp } from './test-app.js';

/**
 * Scoped staff for tests (docs/architecture.md §5.6): a platform, merchant or shop user holding exactly the
 * given permissions, with a live session issued as a login would issue it (without the captcha and
 * argon2 round trip). A merchant or shop is created when none is given.
 */
export type StaffKind = 'platform' | 'merchant' | 'shop';

export interface StaffSession {
  token: string;
  refreshToken: string;
  userId: number;
  username: string;
  password: string;
  account: Account;
  merchantId: number | null;
  shopId: number | null;
}

export const STAFF_PASSWORD = 'Staff@Pass2026';
let passwordHash: Promise<string> | null = null;

export async function staffSession(
  t: TestApp,
  opts: { kind: StaffKind; permissions?: string[]; merchantId?: number; shopId?: number; status?: number },
): Promise<StaffSession> {
  let merchantId: number | null = null;
  let shopId: number | null = null;
  if (opts.kind === 'shop') {
    shopId = opts.shopId ?? (await createShop(t.db, opts.merchantId ? { merchant_id: opts.merchantId } : {}));
    merchantId = (
      await t.db.selectFrom('shop').select('merchant_id').where('id', '=', shopId).executeTakeFirstOrThrow()
    ).merchant_id;
  } else if (opts.kind === 'merchant') {
    merchantId = opts.merchantId ?? (await createMerchant(t.db));
  }
  const username = uniq(`${opts.kind}_`);
  passwordHash ??= hashPassword(STAFF_PASSWORD);
  const userType =
    opts.kind === 'platform' ? UserType.PLATFORM : opts.kind === 'merchant' ? UserType.MERCHANT : UserType.SHOP;
  const userId = await addStaff(t.db, {
    username,
    passwordHash: await passwordHash,
    userType,
    merchantId,
    shopId,
    permissions: opts.permissions ?? [],
  });
  if (opts.status !== undefined && opts.status !== 1) await setUserStatus(t.db, userId, opts.status, authoredBy());
  const account = await loadStaffAccount(t.db, userId);
  if (!account) throw new Error(`staff ${username} cannot log in (status ${opts.status})`);
  const issued = await issueFor(t, account, 'manage');
  return {
    token: issued.accessToken,
    refreshToken: issued.refreshToken,
    userId,
    username,
    password: STAFF_PASSWORD,
    account,
    merchantId,
    shopId,
  };
}

/**
 * A staff user holding a role of its own (a global one, as the bootstrap's are) with exactly these
 * permissions, through the staff module's front door, as addRole and addUser write them.
 */
export async function addStaff(
  db: Executor,
  u: {
    username: string;
    passwordHash: string;
    userType: number;
    merchantId: number | null;
    shopId: number | null;
    permissions: string[];
  },
): Promise<number> {
  const roleId = await insertRole(
    db,
    {
      code: uniq('role_'),
      name: `role of ${u.username}`,
      permissions: u.permissions,
      merchantId: null,
      shopId: null,
      remark: null,
    },
    null,
  );
  const userId = await insertUser(
    db,
    {
      username: u.username,
      passwordHash: u.passwordHash,
      nickname: u.username,
      mobile: null,
      userType: u.userType,
      merchantId: u.merchantId,
      shopId: u.shopId,
      deptId: null,
    },
    null,
  );
  await replaceUserRoles(db, userId, [roleId]);
  return userId;
}

/** A session for an account that exists (any kind), bound to the channel, as its login issues it. */
export async function issueFor(t: TestApp, account: Account, channel: Channel) {
  const tokens = new TokenService(t.db, t.store, {
    accessS: t.config.accessTokenTtlS,
    refreshS: t.config.refreshTokenTtlS,
  });
  const issued = await tokens.issue(t.db, account, channel, null);
  await tokens.remember(issued, account, channel);
  return issued;
}

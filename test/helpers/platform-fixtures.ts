import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { hashPassword } from '../../src/platform/auth/password.js';
import { TokenService } from '../../src/platform/auth/tokens.js';
import type { Db } from '../../src/platform/db/database.js';
import type { Account } from '../../src/platform/http/context.js';
import { UserType } from '../../src/platform/http/context.js';
import type { RouteSpec } from '../../src/platform/http/routes.js';
import { defineModule } from '../../src/platform/module.js';
import { MODULES } from '../../src/modules/index.js';
import { setUserStatus } from '../../src/modules/staff/index.js';
import type { TestApp } from './test-app.js';
import { attachContractCheck } from './contract-check.js';
import { authoredBy } from './factories.js';
import { addStaff } from './staff.js';

let serial = 0;
/** A name no other test of the run uses (tables are per file, but names must not collide within one). */
export function uniqueName(prefix: string): string {
  serial += 1;
  return `${prefix}_${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}${serial}`;
}

export interface StaffFixture {
  id: number;
  username: string;
  password: string;
}

/** A staff user with a role of its own holding `permissions` (status 1 enabled, 0 disabled). */
export async function createStaff(
  db: Db,
  opts: { permissions?: string[]; status?: number; password?: string; passwordHash?: string; username?: string } = {},
): Promise<StaffFixture> {
  const username = opts.username ?? uniqueName('staff');
  const password = opts.password ?? 'Staff@Pass2026';
  const id = await addStaff(db, {
    username,
    passwordHash: opts.passwordHash ?? (await hashPassword(password)),
    userType: UserType.PLATFORM,
    merchantId: null,
    shopId: null,
    permissions: opts.permissions ?? [],
  });
  if (opts.status !== undefined && opts.status !== 1) await setUserStatus(db, id, opts.status, authoredBy());
  return { id, username, password };
}

/** Requests a captcha image and reads its code from the store, as a person reads the picture. */
export async function requestCaptcha(t: TestApp, opts: { cookie?: string; remoteAddress?: string } = {}) {
  const res = await t.app.inject({
    method: 'GET',
    url: '/manage-api/auth/getRandomCodeImg',
    headers: opts.cookie ? { cookie: opts.cookie } : {},
    ...(opts.remoteAddress ? { remoteAddress: opts.remoteAddress } : {}),
  });
  const key = String(res.headers['x-captcha-key']);
  const code = await t.store.get(`captcha:${key}`);
  return { res, key, code };
}

/** A session of a non-staff account kind (no such login exists yet), issued as a login would. */
export async function issueSession(
  t: TestApp,
  account: Partial<Account> & { kind: Account['kind'] },
  channel: 'app' | 'mp' | 'manage' | 'open',
) {
  const tokens = new TokenService(t.db, t.store, { accessS: 1800, refreshS: 3600 });
  const full: Account = {
    id: 900_000 + ++serial,
    name: 'probe',
    userType: null,
    merchantId: null,
    shopId: null,
    permissions: [],
    ...account,
  };
  const issued = await tokens.issue(t.db, full, channel, null);
  await tokens.remember(issued, full, channel);
  return issued;
}

/**
 * The real app (same database and store as `t`) with extra routes mounted through the same
 * `registerRoutes` pipeline: for behaviours no production route shows yet (other channels, crashes).
 */
export async function buildProbeApp(t: TestApp, routes: RouteSpec[]): Promise<FastifyInstance> {
  const probe = defineModule({ name: 'probe', routes: () => routes });
  const app = await buildApp({
    config: t.config,
    database: t.database,
    store: t.store,
    logger: false,
    modules: [...MODULES, probe],
  });
  attachContractCheck(app);
  await app.ready();
  return app;
}

export { freePort } from './free-port.js';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Rate limits count in fixed one-minute windows: start a counted sequence well inside one. */
export async function awayFromMinuteEdge(marginMs = 8_000): Promise<void> {
  const into = Date.now() % 60_000;
  if (into > 60_000 - marginMs) await sleep(60_000 - into + 200);
}

import { expect, it } from 'vitest';
import { loadCheckerAccount } from '../../src/modules/checker/checker-login.repository.js';
import { loadMemberAccount } from '../../src/modules/member/member.repository.js';
import { createChecker, createMember } from './factories.js';
import { issueFor, staffSession } from './staff.js';
import type { TestApp } from './test-app.js';

/**
 * The refusals every staff operation must show (the sales tests are the model, docs/new-module.md):
 * no token, a token of another channel, a staff user without the permission, bad input naming the
 * field. Scoping (another merchant's or shop's record) and success need the module's own data and
 * are written next to these in the module's test file.
 */
export interface StaffOperation {
  /** with its channel prefix, e.g. /manage-api/sales/getSales */
  path: string;
  permission: string;
  method?: 'POST' | 'GET';
  /** a body the operation accepts (evaluated when the test runs, after the file's setup) */
  validBody: () => unknown;
  /** bodies refused with 400; `field` must appear in errmsg */
  badInputs?: Array<{ body: () => unknown; field: string; rule?: string | RegExp }>;
}

export function itRefusesWhatStaffOperationsRefuse(getT: () => TestApp, op: StaffOperation): void {
  const call = (body: unknown, token?: string) =>
    getT().call(op.method ?? 'POST', op.path, { body: op.method === 'GET' ? undefined : body, token });

  it(`${op.path}: no token → 401`, async () => {
    const res = await call(op.validBody());
    expect(res.body.errcode).toBe(401);
    expect(res.body.data).toBeUndefined();
  });

  it(`${op.path}: a verifier's or a member's token → 401`, async () => {
    const t = getT();
    const checker = await loadCheckerAccount(t.db, (await createChecker(t.db)).id);
    const member = await loadMemberAccount(t.db, await createMember(t.db));
    for (const [account, channel] of [
      [checker!, 'app'],
      [member!, 'mp'],
    ] as const) {
      const issued = await issueFor(t, account, channel);
      const res = await call(op.validBody(), issued.accessToken);
      expect(res.body.errcode, account.kind).toBe(401);
    }
  });

  it(`${op.path}: staff without ${op.permission} → 403`, async () => {
    const t = getT();
    const other = await staffSession(t, { kind: 'platform', permissions: ['region:read'] });
    const res = await call(op.validBody(), other.token);
    expect(res.body).toEqual({ errcode: 403, errmsg: `no permission: ${op.permission} is required` });
  });

  for (const bad of op.badInputs ?? []) {
    it(`${op.path}: bad ${bad.field} → 400 naming the field`, async () => {
      const t = getT();
      const staff = await staffSession(t, { kind: 'platform', permissions: [op.permission] });
      const res = await call(bad.body(), staff.token);
      expect(res.body.errcode, JSON.stringify(res.body)).toBe(400);
      expect(res.body.errmsg).toContain(bad.field);
      if (bad.rule) expect(res.body.errmsg).toMatch(bad.rule);
    });
  }
}

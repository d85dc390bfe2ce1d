import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authoredBy,
  createCard,
  createCardBinding,
  createCardModel,
  createChecker,
  createMember,
  randomMobile,
} from '../helpers/factories.js';
import { issueFor, staffSession } from '../helpers/staff.js';
import { loadCheckerAccount } from '../../src/modules/checker/checker-login.repository.js';
import { setMemberStatus } from '../../src/modules/member/index.js';
import { createMemberTestApp, memberSession, type MemberTestApp } from './member-fixtures.js';

const MP = '/mp-api/member';
const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

let m: MemberTestApp;
let admin: string;
beforeAll(async () => {
  m = await createMemberTestApp();
  admin = (await staffSession(m.t, { kind: 'platform', permissions: ['*'] })).token;
});
afterAll(() => m?.close());

const post = (path: string, body: unknown, token?: string) => m.t.post(`${MP}/${path}`, body, token);

/** Requests a code for the session and phone and answers it, as the member reads it off the SMS. */
async function codeFor(token: string, phone: string): Promise<string> {
  const res = await post('sendSmsCode', { phone }, token);
  expect(res.body, JSON.stringify(res.body)).toEqual({ errcode: 0, errmsg: 'success' });
  return m.lastCode(phone);
}

/**
 * A card of its own model with a binding made with the phone (held by nobody, or by `memberId`), living
 * unless `ended`.
 */
async function boundCard(
  phone: string,
  opts: { memberId?: number | null; status?: number; name?: string; ended?: boolean } = {},
) {
  const cardModelId = await createCardModel(m.t.db);
  const cardId = await createCard(m.t.db, {
    card_number: `T${Date.now()}${Math.floor(Math.random() * 1e9)}`.slice(0, 32),
    card_model_id: cardModelId,
    status: opts.status ?? 2,
    active_time: null,
    expire_time: null,
  });
  const bindingId = await createCardBinding(m.t.db, {
    card_id: cardId,
    member_id: opts.memberId ?? null,
    name: opts.name ?? 'Holder',
    phone,
    id_type: 1,
    id_no: '330106199001011234',
    is_deleted: opts.ended,
  });
  return { cardId, bindingId };
}

// only the database shows that a binding belongs to no member (the API lists the cards a member holds)
const bindingOwner = async (id: number) =>
  (await m.t.db.selectFrom('card_binding').select('member_id').where('id', '=', id).executeTakeFirstOrThrow())
    .member_id;
/** The cards bound to the member, as the member administration shows them. */
const cardsOf = async (memberId: number): Promise<number[]> => {
  const res = await m.t.post('/manage-api/member/getMember', { id: memberId }, admin);
  expect(res.body.errcode, JSON.stringify(res.body)).toBe(0);
  return res.body.data.cards.map((c: { cardId: number }) => c.cardId);
};
const cardStatus = async (id: number) => (await m.t.post('/manage-api/card/getCard', { id }, admin)).body.data.status;
/** The mobile of the session's member, as getMember answers it. */
const mobileOf = async (token: string) => {
  const res = await post('getMember', {}, token);
  expect(res.body.errcode, JSON.stringify(res.body)).toBe(0);
  return res.body.data.mobile;
};

describe('getMember', () => {
  it('answers the session member with every MemberResponse field', async () => {
    const s = await memberSession(m.t, {
      mobile: randomMobile(),
      nickname: 'Nick',
      name: '王伟',
      sex: 1,
      area_id: 330106,
      birthday: '1990-05-17',
      point: 12,
      tag_ids: '1,2',
      level_id: 3,
      experience: 40,
      group_id: 5,
      mark: 'vip',
      register_ip: '10.0.0.1',
      login_ip: '10.0.0.2',
      login_date: new Date(2026, 0, 2, 3, 4, 5),
      avatar: 'https://img.example/a.png',
      channel: 6,
      third_id: 'union-1',
      password_hash: '$argon2id$secret',
    });
    const res = await post('getMember', {}, s.token);
    expect(res.body.errcode).toBe(0);
    expect(res.body.data).toEqual({
      id: s.id,
      openId: expect.any(String),
      mobile: expect.stringMatching(/^1\d{10}$/),
      status: 1,
      registerIp: '10.0.0.1',
      registerTerminal: 2,
      loginIp: '10.0.0.2',
      loginDate: '2026-01-02 03:04:05',
      nickname: 'Nick',
      avatar: 'https://img.example/a.png',
      name: '王伟',
      sex: 1,
      areaId: 330106,
      birthday: '1990-05-17 00:00:00',
      mark: 'vip',
      point: 12,
      tagIds: '1,2',
      levelId: 3,
      experience: 40,
      groupId: 5,
    });
    expect(JSON.stringify(res.body)).not.toContain('argon2');
  });

  it('answers another member only its own record, and works with an empty body too', async () => {
    const a = await memberSession(m.t);
    const b = await memberSession(m.t);
    const res = await m.t.call('POST', `${MP}/getMember`, { token: b.token });
    expect(res.body.data.id).toBe(b.id);
    expect((await post('getMember', { id: a.id }, b.token)).body.data.id).toBe(b.id);
  });

  it('refuses no token, a staff token and a verifier token with 401', async () => {
    expect((await post('getMember', {})).body.errcode).toBe(401);
    const staff = await staffSession(m.t, { kind: 'platform', permissions: ['*'] });
    expect((await post('getMember', {}, staff.token)).body.errcode).toBe(401);
    const checker = await loadCheckerAccount(m.t.db, (await createChecker(m.t.db)).id);
    const issued = await issueFor(m.t, checker!, 'app');
    expect((await post('getMember', {}, issued.accessToken)).body.errcode).toBe(401);
  });

  it('ends the session of a member that was disabled', async () => {
    const s = await memberSession(m.t);
    // the member owner's own write, not updateMemberStatus, which ends the sessions itself: this is about the session reload
    await setMemberStatus(m.t.db, s.id, 0, authoredBy());
    await m.t.store.del(`sess:${(await import('../../src/platform/auth/token-codec.js')).hashToken(s.token)}`);
    expect((await post('getMember', {}, s.token)).body.errcode).toBe(401);
  });
});

describe('sendSmsCode', () => {
  it('texts a 6-digit code to the phone', async () => {
    const s = await memberSession(m.t);
    const phone = randomMobile();
    expect(await codeFor(s.token, phone)).toMatch(/^\d{6}$/);
    expect(m.sentTo(phone)).toBe(1);
  });

  it('refuses a second code within 60 s and the eleventh of a day with 429', async () => {
    const s = await memberSession(m.t);
    const phone = randomMobile();
    const start = m.clock.now;
    // The eleven sends span eleven minutes of one service day: started near midnight, the day would
    // turn during them and the eleventh be the next day's first (as it was in CI at 23:56 local time).
    const local = new Date(start);
    const nextMidnight = new Date(local.getFullYear(), local.getMonth(), local.getDate() + 1).getTime();
    if (nextMidnight - start < 20 * 60_000) m.clock.now = nextMidnight + 60_000;
    try {
      await codeFor(s.token, phone);
      const again = await post('sendSmsCode', { phone }, s.token);
      expect(again.body.errcode).toBe(429);
      expect(again.body.errmsg).toMatch(/less than a minute ago, please try again in \d+ seconds?/);
      for (let i = 2; i <= 10; i++) {
        m.clock.now += 61_000;
        expect((await post('sendSmsCode', { phone }, s.token)).body.errcode, `send ${i}`).toBe(0);
      }
      m.clock.now += 61_000;
      const eleventh = await post('sendSmsCode', { phone }, s.token);
      expect(eleventh.body).toEqual({
        errcode: 429,
        errmsg: 'too many SMS codes were sent to this phone today, please try again tomorrow',
      });
      expect(m.sentTo(phone)).toBe(10);
    } finally {
      m.clock.now = start;
    }
  });

  it('limits the phone whichever member asks', async () => {
    const phone = randomMobile();
    await codeFor((await memberSession(m.t)).token, phone);
    expect((await post('sendSmsCode', { phone }, (await memberSession(m.t)).token)).body.errcode).toBe(429);
  });

  it('refuses a phone that is not a mainland mobile with 400 naming it, and no token with 401', async () => {
    const s = await memberSession(m.t);
    for (const phone of ['12345678901', '1380013800', '138001380000', '+8613800138000', '']) {
      const res = await post('sendSmsCode', { phone }, s.token);
      expect(res.body.errcode, phone).toBe(400);
      expect(res.body.errmsg).toContain('phone');
    }
    expect((await post('sendSmsCode', {}, s.token)).body).toEqual({ errcode: 400, errmsg: 'phone is required' });
    expect((await post('sendSmsCode', { phone: randomMobile() })).body.errcode).toBe(401);
  });
});

describe('bindPhone', () => {
  it('binds the phone, moves the bindings made with it and binds their unbound cards, spends the code, logs', async () => {
    const s = await memberSession(m.t);
    const phone = randomMobile();
    const other = await createMember(m.t.db);
    const free = await boundCard(phone);
    const heldByOther = await boundCard(phone, { memberId: other });
    const unbound = await boundCard(phone, { status: 1 });
    const disabled = await boundCard(phone, { status: 3 });
    const elsewhere = await boundCard(randomMobile());
    const deleted = await boundCard(phone, { ended: true });

    const code = await codeFor(s.token, phone);
    const res = await post('bindPhone', { phone, smsCode: code, pageNum: 1, pageSize: 10 }, s.token);
    expect(res.body).toEqual({ errcode: 0, errmsg: 'success' });

    expect(await mobileOf(s.token)).toBe(phone);
    expect((await cardsOf(s.id)).sort()).toEqual([free, heldByOther, unbound, disabled].map((b) => b.cardId).sort());
    expect(await bindingOwner(elsewhere.bindingId)).toBeNull();
    expect(await bindingOwner(deleted.bindingId)).toBeNull();
    expect([
      await cardStatus(free.cardId),
      await cardStatus(unbound.cardId),
      await cardStatus(disabled.cardId),
    ]).toEqual([2, 2, 3]);
    expect((await post('getMember', {}, s.token)).body.data.mobile).toBe(phone);

    // The code is spent: the same code again reads as expired.
    const again = await post('bindPhone', { phone, smsCode: code }, s.token);
    expect(again.body).toEqual({ errcode: 1002000004, errmsg: 'the SMS code has expired, please request a new one' });

    // only the database shows the operation log
    const log = await m.t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'biz_id', 'success', 'account_kind'])
      .where('account_id', '=', s.id)
      .where('account_kind', '=', 'member')
      .where('action', '=', '绑定手机号')
      .orderBy('id')
      .execute();
    expect(log).toEqual([
      { module: '会员', action: '绑定手机号', biz_id: String(s.id), success: true, account_kind: 'member' },
      { module: '会员', action: '绑定手机号', biz_id: null, success: false, account_kind: 'member' },
    ]);
  });

  it('lets a member bind its own phone again', async () => {
    const phone = randomMobile();
    const s = await memberSession(m.t, { mobile: phone });
    const res = await post('bindPhone', { phone, smsCode: await codeFor(s.token, phone) }, s.token);
    expect(res.body.errcode).toBe(0);
  });

  it('answers 1002000005 for a wrong code and 1002000004 when none was requested, changing nothing', async () => {
    const s = await memberSession(m.t);
    const phone = randomMobile();
    const b = await boundCard(phone);
    expect((await post('bindPhone', { phone, smsCode: '123456' }, s.token)).body).toEqual({
      errcode: 1002000004,
      errmsg: 'the SMS code has expired, please request a new one',
    });
    const code = await codeFor(s.token, phone);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    expect((await post('bindPhone', { phone, smsCode: wrong }, s.token)).body).toEqual({
      errcode: 1002000005,
      errmsg: 'the SMS code is wrong',
    });
    expect(await mobileOf(s.token)).toBeNull();
    expect(await bindingOwner(b.bindingId)).toBeNull();
    // The right code still works after a wrong one.
    expect((await post('bindPhone', { phone, smsCode: code }, s.token)).body.errcode).toBe(0);
  });

  it('answers 1002000004 once the code is older than 5 minutes', async () => {
    const s = await memberSession(m.t);
    const phone = randomMobile();
    const code = await codeFor(s.token, phone);
    const start = m.clock.now;
    m.clock.now += 5 * 60_000 + 1;
    try {
      expect((await post('bindPhone', { phone, smsCode: code }, s.token)).body.errcode).toBe(1002000004);
    } finally {
      m.clock.now = start;
    }
    expect(await mobileOf(s.token)).toBeNull();
  });

  it('holds a code for the session and the phone it was sent for', async () => {
    const s = await memberSession(m.t);
    const intruder = await memberSession(m.t);
    const phone = randomMobile();
    const code = await codeFor(s.token, phone);
    expect((await post('bindPhone', { phone, smsCode: code }, intruder.token)).body.errcode).toBe(1002000004);
    expect((await post('bindPhone', { phone: randomMobile(), smsCode: code }, s.token)).body.errcode).toBe(1002000004);
    expect(await mobileOf(intruder.token)).toBeNull();
    // A refreshed token keeps its session, and with it the code.
    const refreshed = await m.t.post('/mp-api/auth/refreshToken', { refreshToken: s.refreshToken });
    expect((await post('bindPhone', { phone, smsCode: code }, refreshed.body.data.accessToken)).body.errcode).toBe(0);
  });

  it('refuses a phone another member holds with 409, and keeps the code for another try', async () => {
    const phone = randomMobile();
    const holder = await createMember(m.t.db, { mobile: phone, status: 0 });
    const s = await memberSession(m.t);
    const b = await boundCard(phone, { memberId: holder });
    const code = await codeFor(s.token, phone);
    const res = await post('bindPhone', { phone, smsCode: code }, s.token);
    expect(res.body).toEqual({ errcode: 409, errmsg: 'this phone number is already bound to another member' });
    expect(await mobileOf(s.token)).toBeNull();
    expect(await cardsOf(holder)).toEqual([b.cardId]);
    // Once the holder is deleted, the phone is free and the code still good.
    // Written directly: no operation deletes a member (staff only enable and disable them).
    await m.t.db.updateTable('member').set({ is_deleted: true }).where('id', '=', holder).execute();
    expect((await post('bindPhone', { phone, smsCode: code }, s.token)).body.errcode).toBe(0);
    expect(await cardsOf(s.id)).toEqual([b.cardId]);
  });

  it('lets exactly one of two members racing for one phone take it', async () => {
    const phone = randomMobile();
    const a = await memberSession(m.t);
    const b = await memberSession(m.t);
    const codeA = await codeFor(a.token, phone);
    m.clock.now += 61_000;
    const codeB = await codeFor(b.token, phone);
    const answers = await Promise.all([
      post('bindPhone', { phone, smsCode: codeA }, a.token),
      post('bindPhone', { phone, smsCode: codeB }, b.token),
    ]);
    expect(answers.map((r) => r.body.errcode).sort()).toEqual([0, 409]);
    const holders = await m.t.post('/manage-api/member/queryMemberPage', { mobile: phone }, admin);
    expect(holders.body.data.list.filter((x: { mobile: string }) => x.mobile === phone)).toHaveLength(1);
  });

  it('leaves nothing changed when a failure strikes after the member was updated', async () => {
    const s = await memberSession(m.t);
    const phone = randomMobile();
    const before = await mobileOf(s.token);
    const first = await boundCard(phone, { status: 1 });
    const poisoned = await boundCard(phone, { name: 'FAIL-ON-UPDATE' });
    // Raises while the bindings are moved, i.e. after the member row was updated in the same transaction.
    await sql
      .raw(
        `create or replace function member_test_fail() returns trigger language plpgsql as $$
      begin if new.name = 'FAIL-ON-UPDATE' then raise exception 'injected failure'; end if; return new; end $$`,
      )
      .execute(m.t.db);
    await sql
      .raw(
        `create trigger member_test_fail before update on card_binding for each row execute function member_test_fail()`,
      )
      .execute(m.t.db);
    try {
      const code = await codeFor(s.token, phone);
      const res = await post('bindPhone', { phone, smsCode: code }, s.token);
      expect(res.body).toEqual({ errcode: 500, errmsg: 'internal server error' });
      expect(await mobileOf(s.token)).toBe(before);
      expect(await bindingOwner(first.bindingId)).toBeNull();
      expect(await bindingOwner(poisoned.bindingId)).toBeNull();
      expect(await cardStatus(first.cardId)).toBe(1);
      // only the database shows the operation log
      const log = await m.t.db
        .selectFrom('operate_log')
        .select(['success', 'errcode'])
        .where('account_id', '=', s.id)
        .where('account_kind', '=', 'member')
        .where('action', '=', '绑定手机号')
        .execute();
      expect(log).toEqual([{ success: false, errcode: 500 }]);

      // The code was not spent: once the fault is gone the same code binds the phone.
      await sql.raw('drop trigger member_test_fail on card_binding').execute(m.t.db);
      expect((await post('bindPhone', { phone, smsCode: code }, s.token)).body.errcode).toBe(0);
      expect(await cardsOf(s.id)).toContain(poisoned.cardId);
      expect(await cardStatus(first.cardId)).toBe(2);
    } finally {
      await sql.raw('drop trigger if exists member_test_fail on card_binding').execute(m.t.db);
      await sql.raw('drop function if exists member_test_fail()').execute(m.t.db);
    }
  });

  it('refuses bad input with 400 naming the field, and strangers with 401', async () => {
    const s = await memberSession(m.t);
    const cases: Array<[unknown, string]> = [
      [{ smsCode: '123456' }, 'phone is required'],
      [{ phone: randomMobile() }, 'smsCode is required'],
      [{ phone: '23800138000', smsCode: '123456' }, 'phone'],
      [{ phone: randomMobile(), smsCode: 'x'.repeat(17) }, 'smsCode'],
      [{ phone: randomMobile(), smsCode: '123456', pageSize: 1.5 }, 'pageSize'],
    ];
    for (const [body, field] of cases) {
      const res = await post('bindPhone', body, s.token);
      expect(res.body.errcode, JSON.stringify(body)).toBe(400);
      expect(res.body.errmsg).toContain(field);
    }
    expect((await post('bindPhone', { phone: randomMobile(), smsCode: '123456' })).body.errcode).toBe(401);
    const staff = await staffSession(m.t, { kind: 'platform', permissions: ['*'] });
    expect((await post('bindPhone', { phone: randomMobile(), smsCode: '123456' }, staff.token)).body.errcode).toBe(401);
  });
});

describe('response dates', () => {
  it('formats loginDate as YYYY-MM-DD HH:mm:ss', async () => {
    const s = await memberSession(m.t, { login_date: new Date() });
    expect((await post('getMember', {}, s.token)).body.data.loginDate).toMatch(DATE_TIME);
  });
});

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCheckerAccount } from '../../src/modules/checker/checker-login.repository.js';
import { createCard, createChecker, createMember } from '../helpers/factories.js';
import { issueFor, staffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import {
  activate,
  bankToken,
  createBankChannel,
  createBankUser,
  newIdNumber,
  newPerson,
  newPhone,
  P,
  recordingSms,
  requestCode,
  type BankChannel,
  type PersonInput,
  type Recorder,
} from './bank-fixtures.js';

/** activateBankCard (spec B 4.4 rules 1–2, docs/domain.md §5): every OpenapiResponse path and every refusal. */

let t: TestApp;
let rec: Recorder;
let bank: BankChannel;
let teller: string;
let admin: string;

beforeAll(async () => {
  rec = await recordingSms();
  t = await createTestApp({}, { store: rec.store, services: { sms: rec.sms } });
  bank = await createBankChannel(t.db, { operators: [{ total: 100, day: 100 }], pool: 30 });
  teller = await bankToken(
    t,
    await createBankUser(t.db, { businessId: bank.businessId, operatorRowId: bank.operators[0].id }),
  );
  admin = (await staffSession(t, { kind: 'platform', permissions: ['*'] })).token;
});
afterAll(async () => {
  await t?.close();
  await rec?.store.close();
});

const ACTIVATE = `${P}/activateBankCard`;

// only the database shows the operation log
async function operatorLog(bizId: string | null) {
  return t.db
    .selectFrom('operate_log')
    .select(['module', 'action', 'account_kind', 'success', 'errcode', 'biz_id'])
    .where('path', '=', ACTIVATE)
    .where('biz_id', bizId === null ? 'is' : '=', bizId)
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

interface Activation {
  id: number;
  cardNumber: string | null;
  userName: string;
  userPhone: string;
  orderNo: string;
  userIdno: string;
  activeStatus: number;
}

const viewers = new Map<number, Promise<string>>();
/** A bank's activation records (of one operator when told) as its manager sees them, ID numbers whole. */
async function activations(businessId: number, operatorId?: number): Promise<Activation[]> {
  let viewer = viewers.get(businessId);
  if (!viewer) {
    viewer = createBankUser(t.db, { businessId, permissions: ['bank:export:plain'] }).then((u) => bankToken(t, u));
    viewers.set(businessId, viewer);
  }
  const res = await t.post(
    `${P}/getActivationDetailList`,
    { pageSize: 200, ...(operatorId === undefined ? {} : { operatorId }) },
    await viewer,
  );
  expect(res.body.errcode, JSON.stringify(res.body)).toBe(0);
  expect(res.body.data.total).toBeLessThanOrEqual(200);
  return res.body.data.list;
}
const activationsOf = async (businessId: number, phone: string) =>
  (await activations(businessId)).filter((r) => r.userPhone === phone);

/** The members whose mobile is the phone, as the member administration lists them. */
async function membersWith(phone: string): Promise<Array<{ id: number; mobile: string }>> {
  const res = await t.post('/manage-api/member/queryMemberPage', { mobile: phone, pageSize: 200 }, admin);
  expect(res.body.errcode, JSON.stringify(res.body)).toBe(0);
  return res.body.data.list.filter((m: { mobile: string }) => m.mobile === phone);
}

async function cardPage(filter: Record<string, unknown>) {
  const res = await t.post('/manage-api/card/queryCardPage', { pageSize: 200, ...filter }, admin);
  expect(res.body.errcode, JSON.stringify(res.body)).toBe(0);
  return res.body.data as {
    total: number;
    list: Array<{ id: number; cardNumber: string; status: number; activated: boolean; orderNo: string | null }>;
  };
}

async function getCard(cardNumber: string) {
  const res = await t.post('/manage-api/card/getCard', { cardNumber }, admin);
  expect(res.body.errcode, JSON.stringify(res.body)).toBe(0);
  return res.body.data;
}

describe('who may activate', () => {
  const body = () => ({ ...newPerson(), verifyCode: '123456' });

  it('refuses a call without a token, and tokens of staff, verifiers and members (401)', async () => {
    expect((await t.post(ACTIVATE, body())).body.errcode).toBe(401);
    const staff = await staffSession(t, { kind: 'platform', permissions: ['*'] });
    expect((await t.post(ACTIVATE, body(), staff.token)).body).toEqual({
      errcode: 401,
      errmsg: 'this token is not valid for this channel',
    });
    const checker = await loadCheckerAccount(t.db, (await createChecker(t.db)).id);
    const issued = await issueFor(t, checker!, 'app');
    expect((await t.post(ACTIVATE, body(), issued.accessToken)).body.errcode).toBe(401);
  });

  it('refuses a bank manager, who is no operator (1_014_000_002)', async () => {
    const manager = await bankToken(t, await createBankUser(t.db, { businessId: bank.businessId }));
    const res = await t.post(ACTIVATE, body(), manager);
    expect(res.body.errcode).toBe(1_014_000_002);
  });

  it('refuses an operator of a disabled channel (1_014_000_003) and leaves nothing behind', async () => {
    const other = await createBankChannel(t.db, { pool: 2 });
    const token = await bankToken(
      t,
      await createBankUser(t.db, { businessId: other.businessId, operatorRowId: other.operators[0].id }),
    );
    // Written directly: no operation disables a bank channel (its management is not shown, spec B 4.4).
    await t.db.updateTable('channel_info').set({ status: 0 }).where('id', '=', other.channelInfoId).execute();
    const { res, person } = await activate(t, rec, token);
    expect(res.body.errcode).toBe(1_014_000_003);
    expect(await activationsOf(other.businessId, person.phone)).toEqual([]);
  });
});

describe('input', () => {
  const bad: Array<[string, Record<string, unknown>, RegExp]> = [
    ['phone missing', { phone: undefined }, /phone is required/],
    ['phone pattern', { phone: '12345678901' }, /phone is invalid/],
    ['userName blank', { userName: '   ' }, /userName/],
    ['userName missing', { userName: undefined }, /userName is required/],
    ['userIdno blank', { userIdno: ' ' }, /userIdno/],
    [
      'userIdno check character',
      { userIdno: '330106199001010010' },
      /userIdno is invalid: not an 18-character ID card number/,
    ],
    ['userIdType out of range', { userIdType: 10 }, /userIdType is invalid/],
    ['verifyCode missing', { verifyCode: undefined }, /verifyCode is required/],
  ];
  for (const [what, over, message] of bad) {
    it(`refuses ${what} with 400 naming the field`, async () => {
      const body: Record<string, unknown> = { ...newPerson(), verifyCode: '123456', ...over };
      for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
      const res = await t.post(ACTIVATE, body, teller);
      expect(res.body.errcode, JSON.stringify(res.body)).toBe(400);
      expect(res.body.errmsg).toMatch(message);
    });
  }

  it('takes other documents as they are and an ID card number with a lower-case x as upper case', async () => {
    let idNo = newIdNumber();
    while (!idNo.endsWith('X')) idNo = newIdNumber();
    const { res } = await activate(t, rec, teller, newPerson({ userIdno: idNo.toLowerCase() }));
    expect(res.body.data.code).toBe(200);
    expect((await activations(bank.businessId)).find((r) => r.id === res.body.data.data.id)?.userIdno).toBe(idNo);
    // only the database shows the record's document type
    const row = await t.db
      .selectFrom('activation_record')
      .select(['user_id_type'])
      .where('id', '=', res.body.data.data.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ user_id_type: 1 });
    const passport = await activate(t, rec, teller, newPerson({ userIdType: 2, userIdno: 'E12345678' }));
    expect(passport.res.body.data.code).toBe(200);
  });
});

describe('SMS code', () => {
  it('answers 500 when no code was requested and 501 when it is wrong, inside the envelope', async () => {
    const person = newPerson();
    const none = await t.post(ACTIVATE, { ...person, verifyCode: '123456' }, teller);
    expect(none.body).toEqual({
      errcode: 0,
      errmsg: 'success',
      data: { code: 500, msg: 'the SMS code has expired, please request a new one', data: null },
    });
    const code = await requestCode(t, rec, person.phone, 'activate', teller);
    const wrong = await t.post(ACTIVATE, { ...person, verifyCode: code === '000000' ? '000001' : '000000' }, teller);
    expect(wrong.body.data).toEqual({ code: 501, msg: 'the SMS code is wrong', data: null });
    expect(await operatorLog(null)).toMatchObject({ success: false, errcode: 501, account_kind: 'bank' });
    // the right code still works afterwards: checking does not consume
    expect((await t.post(ACTIVATE, { ...person, verifyCode: code }, teller)).body.data.code).toBe(200);
  });

  it('does not accept a code requested for another purpose', async () => {
    const person = newPerson();
    // a login code is texted only to a phone that can log in: make the person a bank user first
    await createBankUser(t.db, { businessId: bank.businessId, mobile: person.phone });
    const code = await requestCode(t, rec, person.phone, 'login');
    expect((await t.post(ACTIVATE, { ...person, verifyCode: code }, teller)).body.data.code).toBe(500);
  });
});

describe('success', () => {
  it('makes the order, the record, binds a pool card to a new member, logs, texts the holder and spends the code', async () => {
    const { res, person, verifyCode } = await activate(t, rec, teller);
    expect(res.body.errcode).toBe(0);
    const answer = res.body.data;
    expect(answer).toMatchObject({ code: 200, msg: 'success' });
    const d = answer.data;
    expect(d).toEqual({
      id: expect.any(Number),
      orderNo: expect.stringMatching(/^BK\d{8}\d{10}$/),
      cardNumber: expect.any(String),
      cardModelName: expect.any(String),
      memberId: expect.any(Number),
      activeTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      expireTime: expect.any(String),
    });
    expect(Number(d.expireTime.slice(0, 4)) * 12 + Number(d.expireTime.slice(5, 7))).toBe(
      Number(d.activeTime.slice(0, 4)) * 12 + Number(d.activeTime.slice(5, 7)) + 12,
    );

    const card = await getCard(d.cardNumber);
    expect(card).toMatchObject({
      status: 2,
      cardModelId: bank.cardModelId,
      merchantId: bank.merchantId,
      orderNo: d.orderNo,
    });
    expect(card.holder).toMatchObject({
      memberId: d.memberId,
      name: person.userName,
      phone: person.phone,
      idType: '1',
      idNo: person.userIdno,
    });
    // only the database shows the card's bindings over time (the API shows its current holder)
    expect(await t.db.selectFrom('card_binding').select('id').where('card_id', '=', card.id).execute()).toHaveLength(1);
    const member = await t.post('/manage-api/member/getMember', { id: d.memberId }, admin);
    expect(member.body.data).toMatchObject({ mobile: person.phone, name: person.userName, status: 1, channel: '6' });
    // the operator's own records in the channel's bank (the bank has this one channel)
    const record = (await activations(bank.businessId, bank.operators[0].operatorId)).find((r) => r.id === d.id);
    expect(record).toMatchObject({ activeStatus: 1, cardNumber: d.cardNumber });
    // only the database shows the channel order and its log (no operation shows them, spec B 4.4)
    const order = await t.db
      .selectFrom('channel_order')
      .selectAll()
      .where('order_no', '=', d.orderNo)
      .executeTakeFirstOrThrow();
    expect(order).toMatchObject({
      status: 2,
      card_id: card.id,
      member_id: d.memberId,
      amount: 9800,
      user_phone: person.phone,
    });
    const logs = await t.db.selectFrom('channel_order_log').selectAll().where('order_id', '=', order.id).execute();
    expect(logs).toEqual([
      expect.objectContaining({ action: 'activate', content: expect.stringContaining(d.cardNumber) }),
    ]);
    expect(await operatorLog(d.orderNo)).toEqual({
      module: '银行渠道',
      action: '银行卡激活',
      account_kind: 'bank',
      success: true,
      errcode: 0,
      biz_id: d.orderNo,
    });

    expect(rec.sender.lastTo(person.phone)).toMatchObject({
      template: 'cardActivated',
      params: { cardNumber: d.cardNumber, cardName: d.cardModelName },
    });
    // the code was spent: the same one no longer works
    const again = await t.post(ACTIVATE, { ...newPerson({ phone: person.phone }), verifyCode }, teller);
    expect(again.body.data.code).toBe(500);
  });

  it('binds to the member that already has the phone instead of making another', async () => {
    const phone = newPhone();
    const existing = await createMember(t.db, { open_id: `wx_${phone}`, mobile: phone });
    const { res } = await activate(t, rec, teller, newPerson({ phone }));
    expect(res.body.data.data.memberId).toBe(existing);
    expect(await membersWith(phone)).toHaveLength(1);
  });
});

describe('duplicates in a channel (504)', () => {
  it('refuses a phone or an ID number that already activated in the channel, and allows them in another channel', async () => {
    const first = newPerson();
    expect((await activate(t, rec, teller, first)).res.body.data.code).toBe(200);
    rec.advance(61);
    const samePhone = await activate(t, rec, teller, newPerson({ phone: first.phone }));
    expect(samePhone.res.body.data).toEqual({
      code: 504,
      msg: 'this phone number has already activated a card in this channel',
      data: null,
    });
    const sameId = await activate(t, rec, teller, newPerson({ userIdno: first.userIdno }));
    expect(sameId.res.body.data).toEqual({
      code: 504,
      msg: 'this ID number has already activated a card in this channel',
      data: null,
    });
    // the same number under another document type is the same person (see the test below)
    expect(
      (await activate(t, rec, teller, newPerson({ userIdno: first.userIdno, userIdType: 2 }))).res.body.data.code,
    ).toBe(504);
    expect(await operatorLog(null)).toMatchObject({ success: false, errcode: 504 });
    expect(await activationsOf(bank.businessId, first.phone)).toHaveLength(1);

    const other = await createBankChannel(t.db, { pool: 2 });
    const otherTeller = await bankToken(
      t,
      await createBankUser(t.db, { businessId: other.businessId, operatorRowId: other.operators[0].id }),
    );
    rec.advance(61);
    const elsewhere = await activate(t, rec, otherTeller, first);
    expect(elsewhere.res.body.data.code).toBe(200);
    // both cards bound to one member
    const records = [
      ...(await activationsOf(bank.businessId, first.phone)),
      ...(await activationsOf(other.businessId, first.phone)),
    ];
    expect(records).toHaveLength(2);
    const members = await Promise.all(records.map(async (r) => (await getCard(r.cardNumber!)).holder.memberId));
    expect(new Set(members).size).toBe(1);
  });

  it("refuses one person's number in another letter case, with separators or under another document type, writing nothing", async () => {
    const c = await createBankChannel(t.db, { pool: 10 });
    const tok = await bankToken(
      t,
      await createBankUser(t.db, { businessId: c.businessId, operatorRowId: c.operators[0].id }),
    );
    const passport = `G${newPhone().slice(3)}`;
    const idCard = newIdNumber();
    expect((await activate(t, rec, tok, newPerson({ userIdno: passport, userIdType: 2 }))).res.body.data.code).toBe(
      200,
    );
    expect((await activate(t, rec, tok, newPerson({ userIdno: idCard }))).res.body.data.code).toBe(200);
    const written = async () => ({
      // the bank has this one channel
      records: (await activations(c.businessId)).length,
      // only the database shows the channel orders
      orders: (
        await t.db.selectFrom('channel_order').select('id').where('channel_info_id', '=', c.channelInfoId).execute()
      ).length,
      pool: (await cardPage({ cardModelId: c.cardModelId, activated: false })).total,
    });
    const before = await written();
    expect(before).toEqual({ records: 2, orders: 2, pool: 8 });
    const bypasses: Array<Pick<PersonInput, 'userIdno' | 'userIdType'>> = [
      { userIdno: passport.toLowerCase(), userIdType: 2 },
      { userIdno: `${passport.slice(0, 3)}-${passport.slice(3)}`, userIdType: 2 },
      { userIdno: ` ${passport.slice(0, 3)} ${passport.slice(3, 6)}.${passport.slice(6)}`, userIdType: 3 },
      { userIdno: idCard, userIdType: 6 },
      { userIdno: idCard, userIdType: 5 },
      { userIdno: `${idCard.slice(0, 6)}-${idCard.slice(6)}`.toLowerCase(), userIdType: 1 },
    ];
    for (const over of bypasses) {
      const { res, person } = await activate(t, rec, tok, newPerson(over));
      expect(res.body.data, JSON.stringify(over)).toEqual({
        code: 504,
        msg: 'this ID number has already activated a card in this channel',
        data: null,
      });
      expect(await membersWith(person.phone)).toEqual([]);
    }
    expect(await written()).toEqual(before);

    // another person, even one whose number differs by a character only, still activates
    const other = await activate(t, rec, tok, newPerson({ userIdno: `${passport}1`, userIdType: 2 }));
    expect(other.res.body.data.code).toBe(200);
    expect(
      (await activate(t, rec, tok, newPerson({ userIdno: newIdNumber(), userIdType: 5 }))).res.body.data.code,
    ).toBe(200);
    expect(await written()).toEqual({ records: 4, orders: 4, pool: 6 });
  });

  it('stores the number as it is compared: upper case, without separators, full-width forms folded', async () => {
    const typed = `ｇ２４-${newPhone().slice(5)} `;
    const { res } = await activate(t, rec, teller, newPerson({ userIdno: typed, userIdType: 2 }));
    expect(res.body.data.code).toBe(200);
    const stored = `G24${typed.slice(4, -1)}`;
    expect((await activations(bank.businessId)).find((r) => r.id === res.body.data.data.id)?.userIdno).toBe(stored);
    // only the database shows the comparison key and the channel order
    const record = await t.db
      .selectFrom('activation_record')
      .select(['user_idno_key', 'order_id'])
      .where('id', '=', res.body.data.data.id)
      .executeTakeFirstOrThrow();
    expect(record).toMatchObject({ user_idno_key: stored });
    expect(
      (
        await t.db
          .selectFrom('channel_order')
          .select('user_idno')
          .where('id', '=', record.order_id)
          .executeTakeFirstOrThrow()
      ).user_idno,
    ).toBe(stored);
    const junk = await t.post(
      ACTIVATE,
      { ...newPerson({ userIdno: 'G24#463517', userIdType: 2 }), verifyCode: '123456' },
      teller,
    );
    expect(junk.body.errcode).toBe(400);
    expect(junk.body.errmsg).toMatch(/^userIdno is invalid: must hold letters and digits only/);
  });

  it('answers 504 when the unique index catches one person under another document type', async () => {
    // A rival record for the same number as a driving licence, committed between our check and our insert.
    await sql
      .raw(
        `create or replace function bank_test_rival_id() returns trigger language plpgsql as $$
      begin
        if new.user_name = 'RACE-ID-HOLDER' then
          insert into activation_record (channel_info_id, operator_id, order_id, user_name, user_phone, user_id_type, user_idno, user_idno_key)
          values (new.channel_info_id, new.operator_id, new.order_id, 'rival', '1' || new.order_id, 5, lower(new.user_idno), new.user_idno_key);
        end if;
        return new;
      end $$`,
      )
      .execute(t.db);
    await sql
      .raw(
        'create trigger bank_test_rival_id before insert on activation_record for each row execute function bank_test_rival_id()',
      )
      .execute(t.db);
    try {
      const { res, person } = await activate(t, rec, teller, newPerson({ userName: 'RACE-ID-HOLDER' }));
      expect(res.body.data).toEqual({
        code: 504,
        msg: 'this ID number has already activated a card in this channel',
        data: null,
      });
      expect(await activationsOf(bank.businessId, person.phone)).toEqual([]);
    } finally {
      await sql.raw('drop trigger if exists bank_test_rival_id on activation_record').execute(t.db);
    }
  });

  it('lets one of two operators racing with one phone activate it', async () => {
    const c = await createBankChannel(t.db, {
      operators: [
        { total: 10, day: 10 },
        { total: 10, day: 10 },
      ],
      pool: 5,
    });
    const tokens = await Promise.all(
      c.operators.map(async (o) =>
        bankToken(t, await createBankUser(t.db, { businessId: c.businessId, operatorRowId: o.id })),
      ),
    );
    const person = newPerson();
    const verifyCode = await requestCode(t, rec, person.phone, 'activate', tokens[0]);
    const answers = await Promise.all(tokens.map((tok) => t.post(ACTIVATE, { ...person, verifyCode }, tok)));
    // The loser answers 504, or 500 when the winner had already spent the shared code (PGlite runs them in turn).
    const codes = answers.map((a) => a.body.data?.code).sort();
    expect(codes[0]).toBe(200);
    expect([500, 504]).toContain(codes[1]);
    expect(await activations(c.businessId)).toHaveLength(1);
  });

  it('answers 504 when the unique index, not the check before it, catches the duplicate', async () => {
    // A trigger commits a rival record for the same phone just before ours: what a racing operator
    // on another instance does between our check and our insert.
    await sql
      .raw(
        `create or replace function bank_test_rival() returns trigger language plpgsql as $$
      begin
        if new.user_name = 'RACE-HOLDER' then
          insert into activation_record (channel_info_id, operator_id, order_id, user_name, user_phone, user_id_type, user_idno)
          values (new.channel_info_id, new.operator_id, new.order_id, 'rival', new.user_phone, 2, 'RIVAL' || new.order_id);
        end if;
        return new;
      end $$`,
      )
      .execute(t.db);
    await sql
      .raw(
        'create trigger bank_test_rival before insert on activation_record for each row execute function bank_test_rival()',
      )
      .execute(t.db);
    try {
      const { res, person } = await activate(t, rec, teller, newPerson({ userName: 'RACE-HOLDER' }));
      expect(res.body.data).toEqual({
        code: 504,
        msg: 'this phone number has already activated a card in this channel',
        data: null,
      });
      expect(await activationsOf(bank.businessId, person.phone)).toEqual([]);
      expect(await operatorLog(null)).toMatchObject({ success: false, errcode: 504 });
    } finally {
      await sql.raw('drop trigger if exists bank_test_rival on activation_record').execute(t.db);
    }
  });
});

describe('quotas (503)', () => {
  it('refuses once the total quota is used, and writes nothing', async () => {
    const c = await createBankChannel(t.db, { operators: [{ total: 2, day: 10 }], pool: 5 });
    const tok = await bankToken(
      t,
      await createBankUser(t.db, { businessId: c.businessId, operatorRowId: c.operators[0].id }),
    );
    for (let i = 0; i < 2; i++) expect((await activate(t, rec, tok)).res.body.data.code).toBe(200);
    const { res, person } = await activate(t, rec, tok);
    expect(res.body.data).toEqual({
      code: 503,
      msg: "the operator's activation quota is used up: 2 of 2 cards activated",
      data: null,
    });
    // only the database shows the channel orders
    expect(
      await t.db.selectFrom('channel_order').select('id').where('user_phone', '=', person.phone).execute(),
    ).toEqual([]);
    expect(await operatorLog(null)).toMatchObject({ success: false, errcode: 503 });
  });

  it("refuses once today's quota is used; yesterday's activations do not count for today", async () => {
    const c = await createBankChannel(t.db, { operators: [{ total: 10, day: 1 }], pool: 5 });
    const tok = await bankToken(
      t,
      await createBankUser(t.db, { businessId: c.businessId, operatorRowId: c.operators[0].id }),
    );
    expect((await activate(t, rec, tok)).res.body.data.code).toBe(200);
    const refused = await activate(t, rec, tok);
    expect(refused.res.body.data).toEqual({
      code: 503,
      msg: "the operator's activation quota for today is used up: 1 of 1 cards activated today",
      data: null,
    });
    // Written directly: no operation backdates an activation to yesterday.
    await t.db
      .updateTable('activation_record')
      .set({ active_time: sql<Date>`active_time - interval '1 day'` })
      .where('operator_id', '=', c.operators[0].id)
      .execute();
    rec.advance(61);
    const retried = await t.post(
      ACTIVATE,
      { ...refused.person, verifyCode: await requestCode(t, rec, refused.person.phone, 'activate', tok) },
      tok,
    );
    expect(retried.body.data.code).toBe(200);
  });
});

describe('card pool', () => {
  it('answers a clear error when the pool is empty, and leaves nothing behind', async () => {
    const c = await createBankChannel(t.db, { pool: 1 });
    const tok = await bankToken(
      t,
      await createBankUser(t.db, { businessId: c.businessId, operatorRowId: c.operators[0].id }),
    );
    expect((await activate(t, rec, tok)).res.body.data.code).toBe(200);
    const { res, person } = await activate(t, rec, tok);
    expect(res.body).toEqual({
      errcode: 1_014_000_001,
      errmsg: "no card is left in this channel's card pool: ask the card administrator to issue cards to the channel",
    });
    // only the database shows the channel orders
    expect(
      await t.db.selectFrom('channel_order').select('id').where('user_phone', '=', person.phone).execute(),
    ).toEqual([]);
    expect(await membersWith(person.phone)).toEqual([]);
    expect(await operatorLog(null)).toMatchObject({ success: false, errcode: 1_014_000_001 });
  });

  it("takes only unactivated cards of the channel's kind issued to the bank", async () => {
    const c = await createBankChannel(t.db, { pool: 0 });
    const tok = await bankToken(
      t,
      await createBankUser(t.db, { businessId: c.businessId, operatorRowId: c.operators[0].id }),
    );
    // a sold card, another kind, another merchant's and a deleted card are not in the pool
    const base = {
      card_model_id: c.cardModelId,
      status: 1,
      channel: 6,
      merchant_id: c.merchantId,
      medium: 1,
      active_time: null,
      expire_time: null,
    };
    await createCard(t.db, { ...base, card_number: `S${newPhone()}`, active_time: new Date() });
    await createCard(t.db, {
      ...base,
      card_number: `K${newPhone()}`,
      card_model_id: (await createBankChannel(t.db, { pool: 0 })).cardModelId,
    });
    await createCard(t.db, {
      ...base,
      card_number: `M${newPhone()}`,
      merchant_id: (await createBankChannel(t.db, { pool: 0 })).merchantId,
    });
    await createCard(t.db, { ...base, card_number: `D${newPhone()}`, is_deleted: true });
    expect((await activate(t, rec, tok)).res.body.errcode).toBe(1_014_000_001);
  });
});

describe('a failure after the card is bound', () => {
  const poison = (table: string, column: string, marker: string) => [
    `create or replace function bank_test_fail_${table}() returns trigger language plpgsql as $$
      begin if new.${column} like '%${marker}%' then raise exception 'injected failure'; end if; return new; end $$`,
    `create trigger bank_test_fail_${table} before insert on ${table} for each row execute function bank_test_fail_${table}()`,
  ];

  for (const [table, column] of [
    ['card_binding', 'name'],
    ['channel_order_log', 'content'],
  ] as const) {
    it(`rolls everything back when the ${table} insert fails`, async () => {
      const c = await createBankChannel(t.db, { operators: [{ total: 10, day: 10, name: 'FAIL-OPERATOR' }], pool: 3 });
      const tok = await bankToken(
        t,
        await createBankUser(t.db, { businessId: c.businessId, operatorRowId: c.operators[0].id }),
      );
      const marker = table === 'card_binding' ? 'FAIL-HOLDER' : 'FAIL-OPERATOR';
      for (const ddl of poison(table, column, marker)) await sql.raw(ddl).execute(t.db);
      try {
        const person = newPerson({ userName: 'FAIL-HOLDER' });
        const verifyCode = await requestCode(t, rec, person.phone, 'activate', tok);
        const res = await t.post(ACTIVATE, { ...person, verifyCode }, tok);
        expect(res.body).toEqual({ errcode: 500, errmsg: 'internal server error' });

        // only the database shows the channel orders
        expect(
          await t.db.selectFrom('channel_order').select('id').where('user_phone', '=', person.phone).execute(),
        ).toEqual([]);
        expect(await activationsOf(c.businessId, person.phone)).toEqual([]);
        expect(await membersWith(person.phone)).toEqual([]);
        // only the database shows an ended binding as well as a current one
        expect(await t.db.selectFrom('card_binding').select('id').where('phone', '=', person.phone).execute()).toEqual(
          [],
        );
        const pool = await cardPage({ cardModelId: c.cardModelId });
        expect(pool.list.map(({ status, activated, orderNo }) => ({ status, activated, orderNo }))).toEqual(
          Array(3).fill({ status: 1, activated: false, orderNo: null }),
        );
        expect(rec.sender.lastTo(person.phone)?.template).toBe('verifyCode');
        expect(await operatorLog(null)).toMatchObject({ success: false, errcode: 500 });

        // nothing was spent: once the fault is gone the same code activates
        await sql.raw(`drop trigger bank_test_fail_${table} on ${table}`).execute(t.db);
        const retried = await t.post(ACTIVATE, { ...person, verifyCode }, tok);
        expect(retried.body.data.code).toBe(200);
      } finally {
        await sql.raw(`drop trigger if exists bank_test_fail_${table} on ${table}`).execute(t.db);
      }
    });
  }
});

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MEMBER_CODE, DEMO_PASSWORD, generateDemoData } from '../../src/seed/demo/index.js';
import { adminUrl } from '../helpers/global-setup.js';
import { randomMobile } from '../helpers/factories.js';
import { createMemberTestApp, idCardNumber, type MemberTestApp } from './member-fixtures.js';

/**
 * What a new user tries first on a DEMO=1 database (README): the demo member logs in with the code
 * demo-member-1, reads its record, binds a phone and keeps contacts; the demo operators page members.
 */
let m: MemberTestApp;
let token: string;
let memberId: number;

beforeAll(async () => {
  m = await createMemberTestApp();
  const name = process.env.DATABASE_URL
    ? (await sql<{ n: string }>`select current_database() as n`.execute(m.t.db)).rows[0].n
    : null;
  const result = await generateDemoData(m.t.database, {
    scale: 0,
    seed: 5,
    databaseUrl: name ? adminUrl(process.env.DATABASE_URL!, name) : null,
  });
  expect(result.status).toBe('created');
  const login = await m.t.post('/mp-api/auth/oauth2', { code: DEMO_MEMBER_CODE });
  expect(login.body.errcode).toBe(0);
  token = login.body.data.accessToken;
  memberId = login.body.data.userId;
});
afterAll(() => m?.close());

const post = (path: string, body: unknown = {}) => m.t.post(`/mp-api${path}`, body, token);

describe('the demo member', () => {
  it('reads its record: the demo nickname, a mobile, a birthday', async () => {
    const res = await post('/member/getMember');
    expect(res.body.errcode).toBe(0);
    expect(res.body.data).toMatchObject({
      id: memberId,
      nickname: '演示会员',
      status: 1,
      mobile: expect.stringMatching(/^1[3-9]\d{9}$/),
    });
    expect(res.body.data.birthday).toMatch(/^\d{4}-\d{2}-\d{2} 00:00:00$/);
  });

  it('keeps contacts: add, list, update, delete', async () => {
    expect((await post('/memberContacts/queryMemberContactsList')).body).toEqual({
      errcode: 0,
      errmsg: 'success',
      data: [],
    });
    const identityNo = idCardNumber();
    expect(
      (
        await post('/memberContacts/addMemberContacts', {
          name: '同行人',
          phone: randomMobile(),
          idType: '1',
          identityNo,
          facePhoto: m.photo(),
        })
      ).body.errcode,
    ).toBe(0);
    const [c] = (await post('/memberContacts/queryMemberContactsList', { keywords: '同行' })).body.data;
    expect(c).toMatchObject({ memberId: String(memberId), identityNo, idType: '1' });
    expect(
      (await post('/memberContacts/updateMemberContacts', { ...c, name: '同行人甲', facePhoto: null })).body.errcode,
    ).toBe(0);
    expect((await post('/memberContacts/getMemberContacts', { id: c.id })).body.data.name).toBe('同行人甲');
    expect((await post('/memberContacts/deleteMemberContacts', { id: c.id })).body.errcode).toBe(0);
  });

  it('binds its own phone again, keeping its cards', async () => {
    const { mobile } = (await post('/member/getMember')).body.data;
    const cardsBefore = await m.t.db
      .selectFrom('card_binding')
      .select('id')
      .where('member_id', '=', memberId)
      .execute();
    expect(cardsBefore.length).toBeGreaterThanOrEqual(2);
    expect((await post('/member/sendSmsCode', { phone: mobile })).body.errcode).toBe(0);
    expect((await post('/member/bindPhone', { phone: mobile, smsCode: m.lastCode(mobile) })).body).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
    const cardsAfter = await m.t.db.selectFrom('card_binding').select('id').where('member_id', '=', memberId).execute();
    expect(cardsAfter.length).toBeGreaterThanOrEqual(cardsBefore.length);
  });

  it('is on the member page of the platform operator, and the seller sees its holders only', async () => {
    const login = async (username: string) => {
      const res = await m.t.loginStaff(username, DEMO_PASSWORD);
      return res.accessToken as string;
    };
    const platform = await login('platform01');
    const { mobile } = (await post('/member/getMember')).body.data;
    const page = await m.t.post('/manage-api/member/queryMemberPage', { mobile }, platform);
    expect(page.body.data.list.map((r: { id: number }) => r.id)).toContain(memberId);
    const all = await m.t.post('/manage-api/member/queryMemberPage', { pageSize: 1 }, platform);
    expect(all.body.data.total).toBeGreaterThan(100);
    // A scenic-spot operator sold no cards in the demo (the platform, the bank and the union did): it sees no member.
    const merchant = await login('merchant01');
    expect((await m.t.post('/manage-api/member/queryMemberPage', {}, merchant)).body.data).toEqual({
      list: [],
      total: 0,
    });
  });
});

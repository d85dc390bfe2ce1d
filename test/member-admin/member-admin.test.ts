import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCard,
  createCardBinding,
  createCardModel,
  createMember,
  createMerchant,
  createShop,
} from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { issueFor, staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { loadMemberAccount } from '../../src/modules/member/member.repository.js';

const M = '/manage-api/member';
const ALL = ['member:read', 'member:write'];

let t: TestApp;
let platform: StaffSession;
let merchantA: StaffSession;
let shopA1: StaffSession;
let merchantB: StaffSession;
let org: { merchantA: number; shopA1: number; shopA2: number; merchantB: number; model: number };

beforeAll(async () => {
  t = await createTestApp();
  const mA = await createMerchant(t.db);
  org = {
    merchantA: mA,
    shopA1: await createShop(t.db, { merchant_id: mA }),
    shopA2: await createShop(t.db, { merchant_id: mA }),
    merchantB: await createMerchant(t.db),
    model: await createCardModel(t.db),
  };
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  merchantA = await staffSession(t, { kind: 'merchant', merchantId: mA, permissions: ALL });
  shopA1 = await staffSession(t, { kind: 'shop', shopId: org.shopA1, permissions: ALL });
  merchantB = await staffSession(t, { kind: 'merchant', merchantId: org.merchantB, permissions: ALL });
});
afterAll(() => t?.close());

/** A member (with any other columns given) holding a bound card sold by the shop. */
async function memberWithCard(shopId: number, merchantId: number, member: Parameters<typeof createMember>[1] = {}) {
  const memberId = await createMember(t.db, { mobile: '13800138000', nickname: 'Traveller', ...member });
  const cardId = await createCard(t.db, {
    card_model_id: org.model,
    status: 2,
    merchant_id: merchantId,
    shop_id: shopId,
    active_time: new Date(),
    expire_time: new Date(Date.now() + 86_400_000 * 365),
  });
  await createCardBinding(t.db, {
    card_id: cardId,
    member_id: memberId,
    name: 'Li Lei',
    phone: '13800138000',
    id_type: 1,
    id_no: '11010519491231002X',
  });
  return { memberId, cardId };
}

describe('rejection matrix', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${M}/getMember`,
    permission: 'member:read',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${M}/updateMemberStatus`,
    permission: 'member:write',
    validBody: () => ({ id: 1, status: 1 }),
    badInputs: [
      { body: () => ({ id: 1, status: 2 }), field: 'status' },
      { body: () => ({ status: 1 }), field: 'id' },
    ],
  });
});

describe('members on the manage channel', () => {
  it('shows a member with its cards; password never leaves', async () => {
    const { memberId, cardId } = await memberWithCard(org.shopA1, org.merchantA, {
      password_hash: '$argon2id$v=19$secret',
    });
    const res = await t.post(`${M}/getMember`, { id: memberId }, platform.token);
    expect(res.body.data).toMatchObject({
      id: memberId,
      mobile: '13800138000',
      nickname: 'Traveller',
      status: 1,
      password: null,
      isDeleted: false,
    });
    expect(res.body.data.cards).toEqual([expect.objectContaining({ cardId, cardModelId: org.model, status: 2 })]);
    expect(JSON.stringify(res.body)).not.toContain('argon2');
    expect((await t.post(`${M}/getMember`, { id: 999_999_999 }, platform.token)).body).toEqual({
      errcode: 404,
      errmsg: 'member not found',
    });
  });

  it('lets merchant and shop users see only members holding cards they sold', async () => {
    const { memberId } = await memberWithCard(org.shopA1, org.merchantA);
    expect((await t.post(`${M}/getMember`, { id: memberId }, merchantA.token)).body.data.cards).toHaveLength(1);
    expect((await t.post(`${M}/getMember`, { id: memberId }, shopA1.token)).body.errcode).toBe(0);
    const refused = { errcode: 403, errmsg: 'the member holds no card your merchant or shop sold' };
    expect((await t.post(`${M}/getMember`, { id: memberId }, merchantB.token)).body).toEqual(refused);
    const other = await memberWithCard(org.shopA2, org.merchantA);
    expect((await t.post(`${M}/getMember`, { id: other.memberId }, shopA1.token)).body).toEqual(refused);
  });

  it('answers members asked for at the same time, by several scopes, as it answers each alone', async () => {
    // Reads made together share a statement per scope (batchedRead): no member's cards, and no
    // scope's refusal, may leak into another read of the same turn.
    const held = [
      await memberWithCard(org.shopA1, org.merchantA),
      await memberWithCard(org.shopA2, org.merchantA),
      await memberWithCard(await createShop(t.db, { merchant_id: org.merchantB }), org.merchantB),
    ];
    const asks = [platform, merchantA, shopA1, merchantB].flatMap((s) =>
      [...held.map((h) => h.memberId), 999_999_999].map((id) => ({ s, id })),
    );
    const alone = [];
    for (const a of asks) alone.push((await t.post(`${M}/getMember`, { id: a.id }, a.s.token)).body);
    const together = await Promise.all(asks.map((a) => t.post(`${M}/getMember`, { id: a.id }, a.s.token)));
    expect(together.map((r) => r.body)).toEqual(alone);
    expect(alone.map((b) => b.errcode)).toEqual([0, 0, 0, 404, 0, 0, 403, 404, 0, 403, 403, 404, 403, 403, 0, 404]);
  });

  it('answers the member as its queryMemberPage row, with its living cards newest binding first, within the scope', async () => {
    const memberId = await createMember(t.db, {
      mobile: '13800138001',
      nickname: 'Collector',
      birthday: '1990-05-04',
      channel: 6,
    });
    const card = async (
      shopId: number,
      merchantId: number,
      boundAt: string,
      cardDeleted = false,
      bindingDeleted = false,
    ) => {
      const c = await createCard(t.db, {
        card_model_id: org.model,
        status: 2,
        merchant_id: merchantId,
        shop_id: shopId,
        is_deleted: cardDeleted,
        active_time: new Date(),
        expire_time: new Date('2027-06-30T00:00:00+08:00'),
      });
      await createCardBinding(t.db, {
        card_id: c,
        member_id: memberId,
        name: 'Han Meimei',
        phone: '13800138001',
        id_type: 1,
        id_no: '11010519491231002X',
        bound_at: new Date(boundAt),
        is_deleted: bindingDeleted,
      });
      return c;
    };
    const a1 = await card(org.shopA1, org.merchantA, '2026-03-01T10:00:00+08:00');
    const a2 = await card(org.shopA2, org.merchantA, '2026-05-01T10:00:00+08:00');
    const b = await card(
      await createShop(t.db, { merchant_id: org.merchantB }),
      org.merchantB,
      '2026-04-01T10:00:00+08:00',
    );
    await card(org.shopA1, org.merchantA, '2026-06-01T10:00:00+08:00', true);
    await card(org.shopA1, org.merchantA, '2026-06-02T10:00:00+08:00', false, true);

    const all = (await t.post(`${M}/getMember`, { id: memberId }, platform.token)).body.data;
    expect(all.cards.map((c: { cardId: number }) => c.cardId)).toEqual([a2, b, a1]);
    expect(all.cards[0]).toEqual({
      cardId: a2,
      cardNumber: expect.any(String),
      cardModelId: org.model,
      cardModelName: expect.any(String),
      status: 2,
      expireTime: '2027-06-30 00:00:00',
      boundTime: '2026-05-01 10:00:00',
    });
    const page = (
      await t.post(`${M}/queryMemberPage`, { pageNum: 1, pageSize: 1, mobile: '13800138001' }, platform.token)
    ).body.data;
    const { cards: _cards, ...member } = all;
    expect(member).toEqual(page.list.find((m: { id: number }) => m.id === memberId));
    expect(member).toMatchObject({ birthday: '1990-05-04 00:00:00', channel: '6' });

    expect(
      (await t.post(`${M}/getMember`, { id: memberId }, merchantA.token)).body.data.cards.map(
        (c: { cardId: number }) => c.cardId,
      ),
    ).toEqual([a2, a1]);
    expect(
      (await t.post(`${M}/getMember`, { id: memberId }, shopA1.token)).body.data.cards.map(
        (c: { cardId: number }) => c.cardId,
      ),
    ).toEqual([a1]);
    expect(
      (await t.post(`${M}/getMember`, { id: memberId }, merchantB.token)).body.data.cards.map(
        (c: { cardId: number }) => c.cardId,
      ),
    ).toEqual([b]);
  });

  it('disabling a member ends its sessions at once and refuses its login; only platform users may', async () => {
    const memberId = await createMember(t.db);
    const session = await issueFor(t, (await loadMemberAccount(t.db, memberId))!, 'mp');
    expect((await t.post('/mp-api/auth/logout', {}, session.accessToken)).body.errcode).toBe(0);
    const live = await issueFor(t, (await loadMemberAccount(t.db, memberId))!, 'mp');
    expect((await t.post(`${M}/updateMemberStatus`, { id: memberId, status: 0 }, merchantA.token)).body).toEqual({
      errcode: 403,
      errmsg: 'only platform users may enable or disable a member',
    });
    expect((await t.post(`${M}/updateMemberStatus`, { id: memberId, status: 0 }, platform.token)).body).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
    expect((await t.post('/mp-api/auth/logout', {}, live.accessToken)).body.errcode).toBe(401);
    expect(await loadMemberAccount(t.db, memberId)).toBeNull();
    expect((await t.post(`${M}/getMember`, { id: memberId }, platform.token)).body.data.status).toBe(0);
    expect((await t.post(`${M}/updateMemberStatus`, { id: memberId, status: 1 }, platform.token)).body.errcode).toBe(0);
    expect(await loadMemberAccount(t.db, memberId)).not.toBeNull();
    // only the database shows the operation log
    const rows = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'success'])
      .where('biz_id', '=', String(memberId))
      .where('path', '=', `${M}/updateMemberStatus`)
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.module, r.action, r.success])).toEqual([
      ['会员管理', '启用/停用会员', false],
      ['会员管理', '启用/停用会员', true],
      ['会员管理', '启用/停用会员', true],
    ]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCardModel, createMember, createShop, uniq } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { countLivingMembers, rebuildMemberTally } from '../../src/modules/member/member-tally.repository.js';

const PAGE = '/manage-api/member/queryMemberPage';
const READ = ['member:read'];

let t: TestApp;
/** merchant A with shops A1 and A2, merchant B */
let org: { merchantA: number; shopA1: number; shopA2: number; merchantB: number; shopB: number };
let platform: StaffSession;
let merchantA: StaffSession;
let shopA1: StaffSession;
let merchantB: StaffSession;
let cardModel: number;

beforeAll(async () => {
  t = await createTestApp();
  const sA1 = await createShop(t.db);
  const { merchant_id: mA } = await t.db
    .selectFrom('shop')
    .select('merchant_id')
    .where('id', '=', sA1)
    .executeTakeFirstOrThrow();
  const sB = await createShop(t.db);
  const { merchant_id: mB } = await t.db
    .selectFrom('shop')
    .select('merchant_id')
    .where('id', '=', sB)
    .executeTakeFirstOrThrow();
  org = { merchantA: mA, shopA1: sA1, shopA2: await createShop(t.db, { merchant_id: mA }), merchantB: mB, shopB: sB };
  platform = await staffSession(t, { kind: 'platform', permissions: READ });
  merchantA = await staffSession(t, { kind: 'merchant', merchantId: org.merchantA, permissions: READ });
  shopA1 = await staffSession(t, { kind: 'shop', shopId: org.shopA1, permissions: READ });
  merchantB = await staffSession(t, { kind: 'merchant', merchantId: org.merchantB, permissions: READ });
  cardModel = await createCardModel(t.db);
});
afterAll(() => t?.close());

let mobileSerial = 0;
/** A mobile starting with the test's own prefix, so a prefix filter finds only this test's members. */
const mobileUnder = (prefix: string) => `${prefix}${String(++mobileSerial).padStart(11 - prefix.length, '0')}`;
/** 7 digits no other test (and no parallel file) uses: 139 and 4 random digits. */
const freshPrefix = () => `139${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`;

/** A card sold by the merchant (and shop), held by the member through a binding. */
async function sellCard(
  memberId: number,
  merchantId: number,
  shopId: number | null,
  opts: { bindingDeleted?: boolean; cardDeleted?: boolean } = {},
) {
  const card = await t.db
    .insertInto('card')
    .values({
      card_number: uniq('C').slice(0, 32),
      card_model_id: cardModel,
      status: 2,
      merchant_id: merchantId,
      shop_id: shopId,
      is_deleted: opts.cardDeleted ?? false,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.db
    .insertInto('card_binding')
    .values({ card_id: card.id, member_id: memberId, name: 'Holder', is_deleted: opts.bindingDeleted ?? false })
    .execute();
}

const page = (who: StaffSession, body: Record<string, unknown>) => t.post(PAGE, body, who.token);
async function ids(who: StaffSession, body: Record<string, unknown>): Promise<number[]> {
  const res = await page(who, { pageSize: 200, ...body });
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return (res.body.data.list as Array<{ id: number }>).map((r) => r.id);
}

describe('rejection matrix', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: PAGE,
    permission: 'member:read',
    validBody: () => ({}),
    badInputs: [
      { body: () => ({ pageSize: 1.5 }), field: 'pageSize', rule: /whole number/ },
      { body: () => ({ pageNum: 2.5 }), field: 'pageNum' },
      { body: () => ({ mobile: '138-0013' }), field: 'mobile' },
      { body: () => ({ mobile: '138001380001' }), field: 'mobile' },
      { body: () => ({ status: 'on' }), field: 'status' },
      { body: () => ({ channel: 9 }), field: 'channel', rule: /between 1 and 8/ },
      { body: () => ({ createdTimeRange: ['2026-01-01'] }), field: 'createdTimeRange' },
      { body: () => ({ createdTimeRange: ['2026-02-30', '2026-03-01'] }), field: 'createdTimeRange[0]' },
      {
        body: () => ({ createdTimeRange: ['2026-03-02', '2026-03-01'] }),
        field: 'createdTimeRange',
        rule: /after the end/,
      },
    ],
  });
});

describe('answer', () => {
  it('carries every MemberPageResponse field, password always null, no hash anywhere', async () => {
    const prefix = freshPrefix();
    const id = await createMember(t.db, {
      mobile: mobileUnder(prefix),
      nickname: 'Page',
      name: '李娜',
      sex: 2,
      channel: 6,
      third_id: 'union-9',
      password_hash: '$2b$10$abcdefghijklmnopqrstuv',
      birthday: '1988-02-29',
      point: 5,
      register_ip: '10.1.1.1',
    });
    const res = await page(platform, { mobile: prefix });
    expect(res.body.data).toEqual({
      total: 1,
      list: [
        {
          id,
          openId: expect.any(String),
          mobile: expect.stringMatching(new RegExp(`^${prefix}`)),
          status: 1,
          registerIp: '10.1.1.1',
          registerTerminal: 2,
          loginIp: null,
          loginDate: null,
          nickname: 'Page',
          avatar: null,
          name: '李娜',
          sex: 2,
          areaId: null,
          birthday: '1988-02-29 00:00:00',
          mark: null,
          point: 5,
          tagIds: null,
          levelId: null,
          experience: 0,
          groupId: null,
          channel: '6',
          thirdId: 'union-9',
          password: null,
          isDeleted: false,
          createdTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        },
      ],
    });
    expect(JSON.stringify(res.body)).not.toContain('$2b$');
  });

  it('leaves deleted members out', async () => {
    const prefix = freshPrefix();
    const kept = await createMember(t.db, { mobile: mobileUnder(prefix) });
    await createMember(t.db, { mobile: mobileUnder(prefix), is_deleted: true });
    expect(await ids(platform, { mobile: prefix })).toEqual([kept]);
  });
});

describe('filters and paging', () => {
  it('filters by mobile prefix, status, channel and registration time, newest first, with the filtered total', async () => {
    const prefix = freshPrefix();
    const made: number[] = [];
    for (let i = 0; i < 7; i++) {
      made.push(
        await createMember(t.db, {
          mobile: mobileUnder(prefix),
          status: i === 6 ? 0 : 1,
          channel: i < 3 ? 3 : 6,
          created_at: new Date(2025, 0, 10 + i, 12),
        }),
      );
    }
    // The prefix inside another mobile does not match: the filter is the mobile's start.
    await createMember(t.db, { mobile: `1${prefix}${String(++mobileSerial).padStart(3, '0')}` });
    expect(await ids(platform, { mobile: prefix })).toEqual([...made].reverse());
    const full = (await t.db.selectFrom('member').select('mobile').where('id', '=', made[2]).executeTakeFirstOrThrow())
      .mobile!;
    expect(await ids(platform, { mobile: full })).toEqual([made[2]]);
    expect(await ids(platform, { mobile: prefix, status: 0 })).toEqual([made[6]]);
    expect(await ids(platform, { mobile: prefix, status: '1' })).toEqual(made.slice(0, 6).reverse());
    expect(await ids(platform, { mobile: prefix, channel: 3 })).toEqual(made.slice(0, 3).reverse());
    expect(await ids(platform, { mobile: prefix, channel: '6', status: 1 })).toEqual(made.slice(3, 6).reverse());
    // A bare end date covers its whole day.
    expect(await ids(platform, { mobile: prefix, createdTimeRange: ['2025-01-11', '2025-01-13'] })).toEqual([
      made[3],
      made[2],
      made[1],
    ]);
    expect(
      await ids(platform, { mobile: prefix, createdTimeRange: ['2025-01-11 12:00:01', '2025-01-13 12:00:00'] }),
    ).toEqual([made[3], made[2]]);
    expect(await ids(platform, { mobile: '1' + prefix.slice(1, 3) + '99999999', status: null, channel: null })).toEqual(
      [],
    );

    const pages = await Promise.all(
      [1, 2, 3].map((pageNum) => page(platform, { mobile: prefix, pageNum, pageSize: 3 })),
    );
    expect(pages.map((p) => p.body.data.total)).toEqual([7, 7, 7]);
    expect(pages.flatMap((p) => p.body.data.list.map((r: { id: number }) => r.id))).toEqual([...made].reverse());
    const beyond = await page(platform, { mobile: prefix, pageNum: 9, pageSize: 3 });
    expect(beyond.body.data).toEqual({ list: [], total: 7 });
  });

  it('defaults to the first 10', async () => {
    const res = await t.post(PAGE, undefined, platform.token);
    expect(res.body.errcode).toBe(0);
    expect(res.body.data.list.length).toBeLessThanOrEqual(10);
  });
});

describe("the platform's total from the member tally", () => {
  /** The living members matching status and channel, counted in the table itself. */
  async function counted(f: { status?: number; channel?: number }): Promise<number> {
    let q = t.db
      .selectFrom('member')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('is_deleted', '=', false);
    if (f.status !== undefined) q = q.where('status', '=', f.status);
    if (f.channel !== undefined) q = q.where('channel', '=', f.channel);
    return Number((await q.executeTakeFirstOrThrow()).n);
  }
  /** The page's total, with a page of one so that the total is never read off a short page. */
  const total = async (f: { status?: number; channel?: number }) => {
    const res = await page(platform, { pageSize: 1, ...f });
    expect(res.body.errcode, res.body.errmsg).toBe(0);
    return res.body.data.total as number;
  };
  const FILTERS = [
    {},
    { status: 0 },
    { status: 1 },
    { channel: 4 },
    { status: 0, channel: 4 },
    { status: 1, channel: 7 },
  ];
  async function expectExactTotals() {
    for (const f of FILTERS) expect(await total(f), JSON.stringify(f)).toBe(await counted(f));
  }

  it('follows registrations, deletions, status and channel changes exactly, also those made at once', async () => {
    await expectExactTotals();
    const made: number[] = [];
    for (let i = 0; i < 6; i++)
      made.push(await createMember(t.db, { status: i % 3 === 0 ? 0 : 1, channel: i < 3 ? 4 : null }));
    await expectExactTotals();
    await t.db.updateTable('member').set({ is_deleted: true }).where('id', '=', made[0]).execute();
    await t.db.updateTable('member').set({ status: 0 }).where('id', '=', made[1]).execute();
    await t.db.updateTable('member').set({ channel: 7 }).where('id', 'in', [made[2], made[3]]).execute();
    // A change that leaves status, channel and deletion as they were; a second deletion of the same member.
    await t.db.updateTable('member').set({ status: 1, nickname: 'same' }).where('id', '=', made[4]).execute();
    await t.db.updateTable('member').set({ is_deleted: true }).where('id', '=', made[0]).execute();
    await expectExactTotals();
    // Restored, then removed for good (a hard delete of a deleted and of a living member).
    await t.db.updateTable('member').set({ is_deleted: false }).where('id', '=', made[0]).execute();
    await t.db.deleteFrom('member').where('id', 'in', [made[0], made[5]]).execute();
    await expectExactTotals();
    // Registrations and deletions in concurrent transactions (several connections on PostgreSQL).
    const more = await Promise.all(
      Array.from({ length: 12 }, (_, i) => createMember(t.db, { status: 1, channel: i % 2 === 0 ? 4 : 7 })),
    );
    await Promise.all(
      more.slice(0, 5).map((id) => t.db.updateTable('member').set({ is_deleted: true }).where('id', '=', id).execute()),
    );
    await expectExactTotals();
  });

  it('answers pages of several filters asked for at once each as it answers alone', async () => {
    // Pages of one filter share their statements, and so do their totals; no filter's rows or total
    // may answer another's.
    const asks = FILTERS.flatMap((f) => [1, 2, 3].map((pageNum) => ({ ...f, pageNum, pageSize: 2 })));
    const alone = [];
    for (const a of asks) alone.push((await page(platform, a)).body);
    const together = await Promise.all(asks.map((a) => page(platform, a)));
    expect(together.map((r) => r.body)).toEqual(alone);
    expect(new Set(alone.map((b) => b.data.total)).size).toBeGreaterThan(2);
    // Totals of several filters asked for in one turn: each its own, however they are shared.
    const totals = await Promise.all(
      [...FILTERS, ...FILTERS].map((f) =>
        countLivingMembers(t.db, { status: f.status ?? null, channel: f.channel ?? null }),
      ),
    );
    const expected = [];
    for (const f of FILTERS) expected.push(await counted(f));
    expect(totals).toEqual([...expected, ...expected]);
  });

  it('is read from the tally, which its rebuild recounts from the members', async () => {
    const before = await total({});
    // A bogus tally row moves the answered total: the page reads the tally, not the member rows.
    await t.db.insertInto('member_tally').values({ status: 1, channel: 0, slot: 99, living: 5 }).execute();
    expect(await total({})).toBe(before + 5);
    await rebuildMemberTally(t.db);
    await expectExactTotals();
    expect(await t.db.selectFrom('member_tally').select('slot').where('slot', '=', 99).execute()).toEqual([]);
  });

  it("is the tally's on a full page and on a page past the last member", async () => {
    await t.db.insertInto('member_tally').values({ status: 1, channel: 0, slot: 97, living: 5 }).execute();
    try {
      const living = await counted({ status: 1 });
      const full = await page(platform, { status: 1, pageSize: 1 });
      expect(full.body.data.list).toHaveLength(1);
      expect(full.body.data.total).toBe(living + 5);
      const past = await page(platform, { status: 1, pageSize: 10, pageNum: Math.ceil(living / 10) + 2 });
      expect(past.body.data).toEqual({ list: [], total: living + 5 });
    } finally {
      await rebuildMemberTally(t.db);
    }
  });

  it('is not used for a mobile or registration-time filter, nor for a merchant', async () => {
    await t.db.insertInto('member_tally').values({ status: 1, channel: 0, slot: 98, living: 5 }).execute();
    try {
      const prefix = freshPrefix();
      for (let i = 0; i < 3; i++)
        await createMember(t.db, { mobile: mobileUnder(prefix), created_at: new Date(2024, 4, 2 + i, 9) });
      expect((await page(platform, { mobile: prefix, pageSize: 1 })).body.data.total).toBe(3);
      expect(
        (await page(platform, { createdTimeRange: ['2024-05-02', '2024-05-04'], pageSize: 1 })).body.data.total,
      ).toBe(3);
      const holder = await createMember(t.db, {});
      await sellCard(holder, org.merchantB, org.shopB);
      await sellCard(await createMember(t.db, {}), org.merchantB, org.shopB);
      expect((await page(merchantB, { pageSize: 1 })).body.data.total).toBe(2);
    } finally {
      await rebuildMemberTally(t.db);
    }
  });
});

describe('scoping', () => {
  it('shows merchant and shop users the members holding cards their business sold', async () => {
    const prefix = freshPrefix();
    const inA1 = await createMember(t.db, { mobile: mobileUnder(prefix) });
    const inA2 = await createMember(t.db, { mobile: mobileUnder(prefix) });
    const inAOnly = await createMember(t.db, { mobile: mobileUnder(prefix) });
    const inB = await createMember(t.db, { mobile: mobileUnder(prefix) });
    const both = await createMember(t.db, { mobile: mobileUnder(prefix) });
    const none = await createMember(t.db, { mobile: mobileUnder(prefix) });
    const unbound = await createMember(t.db, { mobile: mobileUnder(prefix) });
    const cardGone = await createMember(t.db, { mobile: mobileUnder(prefix) });
    await sellCard(inA1, org.merchantA, org.shopA1);
    await sellCard(inA1, org.merchantA, org.shopA1); // two cards: listed once
    await sellCard(inA2, org.merchantA, org.shopA2);
    await sellCard(inAOnly, org.merchantA, null);
    await sellCard(inB, org.merchantB, org.shopB);
    await sellCard(both, org.merchantA, org.shopA1);
    await sellCard(both, org.merchantB, org.shopB);
    await sellCard(unbound, org.merchantA, org.shopA1, { bindingDeleted: true });
    await sellCard(cardGone, org.merchantA, org.shopA1, { cardDeleted: true });

    const sorted = (xs: number[]) => [...xs].sort((a, b) => b - a);
    expect(await ids(platform, { mobile: prefix })).toEqual(
      sorted([inA1, inA2, inAOnly, inB, both, none, unbound, cardGone]),
    );
    expect(await ids(merchantA, { mobile: prefix })).toEqual(sorted([inA1, inA2, inAOnly, both]));
    expect(await ids(shopA1, { mobile: prefix })).toEqual(sorted([inA1, both]));
    // A shop's own id, not its merchant's, chooses its cards (their ids differ here).
    const shopA2 = await staffSession(t, { kind: 'shop', shopId: org.shopA2, permissions: READ });
    expect(org.shopA2).not.toBe(org.merchantA);
    expect(await ids(shopA2, { mobile: prefix })).toEqual([inA2]);
    expect(await ids(merchantB, { mobile: prefix })).toEqual(sorted([inB, both]));
    const paged = await page(merchantA, { mobile: prefix, pageSize: 2 });
    expect(paged.body.data.total).toBe(4);
    expect(paged.body.data.list.map((r: { id: number }) => r.id)).toEqual(
      sorted([inA1, inA2, inAOnly, both]).slice(0, 2),
    );
  });
});

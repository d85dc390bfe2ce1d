import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createCard, createCheck } from './fixtures.js';
import { buildScenario, mayRatio80, type Scenario } from './scenario.js';

/** executeCalc and previewCalc (spec A 4.3, docs/domain.md §2) on the hand-computed scenario. */
const P = '/manage-api/distributeAmount';

let t: TestApp;
let s: Scenario;
let platform: StaffSession;
let merchantA: StaffSession;

beforeAll(async () => {
  t = await createTestApp();
  s = await buildScenario(t);
  platform = await staffSession(t, { kind: 'platform', permissions: ['allocation:*'] });
  merchantA = await staffSession(t, { kind: 'merchant', merchantId: s.merchantA, permissions: ['allocation:*'] });
});
afterAll(() => t?.close());

async function ok(path: string, body: object, who = platform) {
  const res = await t.post(`${P}/${path}`, body, who.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}

/** The living batches of a scope, with their details and ledger rows, straight from the tables. */
async function stored(year: number, month: number, cardModelId: number) {
  const batches = await t.db
    .selectFrom('distribute_batch')
    .selectAll()
    .where('year', '=', year)
    .where('month', '=', month)
    .where('card_model_id', '=', cardModelId)
    .where('is_deleted', '=', false)
    .execute();
  const details = await t.db
    .selectFrom('distribute_detail')
    .selectAll()
    .where('year', '=', year)
    .where('month', '=', month)
    .where('card_model_id', '=', cardModelId)
    .orderBy('park_id')
    .execute();
  const ledger = await t.db
    .selectFrom('deferred_revenue_ledger')
    .selectAll()
    .where('year', '=', year)
    .where('month', '=', month)
    .where('card_model_id', '=', cardModelId)
    .execute();
  return { batches, details, ledger };
}

describe('rejection matrix', () => {
  for (const op of ['executeCalc', 'previewCalc']) {
    itRefusesWhatStaffOperationsRefuse(() => t, {
      path: `${P}/${op}`,
      permission: 'allocation:execute',
      validBody: () => ({ year: 2026, month: 5, cardModelIds: [s.m1] }),
      badInputs: [
        { body: () => ({ month: 5 }), field: 'year', rule: /year is required/ },
        {
          body: () => ({ year: 2019, month: 5 }),
          field: 'year',
          rule: /^year is invalid: must be between 2020 and 2099$/,
        },
        { body: () => ({ year: 2100, month: 5 }), field: 'year', rule: /year is invalid/ },
        { body: () => ({ year: 2026, month: 13 }), field: 'month', rule: /between 1 and 12/ },
        { body: () => ({ year: 2026, month: 0 }), field: 'month' },
        { body: () => ({ year: 2026, months: [5, 13] }), field: 'months[1]', rule: /between 1 and 12/ },
        {
          body: () => ({ year: 2026, month: 5, calcMode: 'fixed' }),
          field: 'fixedAmount',
          rule: /fixedAmount is required when calcMode is fixed/,
        },
        { body: () => ({ year: 2026, month: 5, calcMode: 'share' }), field: 'calcMode' },
        { body: () => ({ year: 2026, month: 5, ratio: 101 }), field: 'ratio', rule: /between 0 and 100/ },
        { body: () => ({ year: 2026, month: 5, ratio: -1 }), field: 'ratio' },
        { body: () => ({ year: 2026, month: 5, ratio: 80.5 }), field: 'ratio', rule: /whole number/ },
        { body: () => ({ year: 2026, month: 5, calcMode: 'fixed', fixedAmount: -1 }), field: 'fixedAmount' },
        {
          body: () => ({ year: 2026, month: 5, cardModelIds: [999_999_999] }),
          field: 'cardModelIds',
          rule: /no card model 999999999/,
        },
        {
          body: () => ({ year: 2026, month: 5, cardModelIds: [s.m3] }),
          field: 'cardModelIds',
          rule: /does not take part in allocation/,
        },
        { body: () => ({ year: 2026, month: 5, cardModelIds: ['x'] }), field: 'cardModelIds[0]' },
      ],
    });
  }

  it('refuses merchant users: running the allocation is for platform users', async () => {
    for (const op of ['executeCalc', 'previewCalc']) {
      const res = await t.post(`${P}/${op}`, { year: 2026, month: 5 }, merchantA.token);
      expect(res.body).toEqual({ errcode: 403, errmsg: 'only platform users can run or delete allocations' });
    }
  });
});

describe('previewCalc', () => {
  it('computes the hand-worked month in ratio mode and saves nothing', async () => {
    const data = await ok('previewCalc', { year: 2026, month: 5, cardModelIds: [s.m1] });
    expect(data).toEqual([
      {
        year: 2026,
        month: 5,
        quarter: 2,
        cardModelId: s.m1,
        cardModelName: '畅游年卡 test',
        cardModelPrice: 19800,
        ratio: 80,
        calcMode: 'ratio',
        fixedAmount: null,
        ...mayRatio80(s),
      },
    ]);
    expect((await stored(2026, 5, s.m1)).batches).toHaveLength(0);
  });

  it('computes fixed mode: validUserCount × fixedAmount, split by largest remainder', async () => {
    const [r] = await ok('previewCalc', {
      year: 2026,
      month: 5,
      cardModelIds: [s.m1],
      calcMode: 'fixed',
      fixedAmount: 333,
      ratio: 50,
    });
    // 4 × 3.33 = 13.32; 1332 × 3 ÷ 7 = 570 r 6, 1332 ÷ 7 = 190 r 2: P1 and P3 get the two cents left.
    expect(r).toMatchObject({
      calcMode: 'fixed',
      fixedAmount: 333,
      ratio: null,
      validUserCount: 4,
      totalDistributeAmount: 1332,
    });
    expect(r.details.map((d: { distributeAmount: number }) => d.distributeAmount)).toEqual([571, 190, 571]);
  });

  it('breaks a tie of remainders towards the lower park id', async () => {
    const [r] = await ok('previewCalc', {
      year: 2026,
      month: 5,
      cardModelIds: [s.m1],
      calcMode: 'fixed',
      fixedAmount: 1,
    });
    // total 4 over 3 : 1 : 3 → 1 r 5, 0 r 4, 1 r 5: two cents left, to P1 and P3 (remainder 5), not P2.
    expect(r.details.map((d: { distributeAmount: number }) => d.distributeAmount)).toEqual([2, 0, 2]);
    const [r2] = await ok('previewCalc', {
      year: 2026,
      month: 5,
      cardModelIds: [s.m1],
      calcMode: 'fixed',
      fixedAmount: 2,
    });
    // total 8: 3 r 3, 1 r 1, 3 r 3 → one cent left, P1 and P3 tie: P1 has the lower id.
    expect(r2.details.map((d: { distributeAmount: number }) => d.distributeAmount)).toEqual([4, 1, 3]);
  });

  it('takes months over month, one element per month and model, each month on its own', async () => {
    const data = await ok('previewCalc', { year: 2026, month: 7, months: [6, 4, 6, 8], cardModelIds: [s.m1, s.m2] });
    expect(data.map((r: { month: number; cardModelId: number }) => [r.month, r.cardModelId])).toEqual([
      [4, s.m1],
      [4, s.m2],
      [6, s.m1],
      [6, s.m2],
      [8, s.m1],
      [8, s.m2],
    ]);
    const m1 = data.filter((r: { cardModelId: number }) => r.cardModelId === s.m1);
    expect(
      m1.map((r: { quarter: number; validUserCount: number; totalDistributeAmount: number }) => [
        r.quarter,
        r.validUserCount,
        r.totalDistributeAmount,
      ]),
    ).toEqual([
      [2, 4, 5280],
      [2, 3, 3960],
      [3, 3, 3960],
    ]);
    // April and June: the boundary checks (04-30 23:59:59, 06-01 00:00:00) each fall in their own month.
    expect(
      m1[0].details.map((d: { checkNum: number; distributeAmount: number }) => [d.checkNum, d.distributeAmount]),
    ).toEqual([
      [0, 0],
      [0, 0],
      [1, 5280],
    ]);
    expect(
      m1[1].details.map((d: { distributePercent: number; distributeAmount: number }) => [
        d.distributePercent,
        d.distributeAmount,
      ]),
    ).toEqual([
      [0, 0],
      [0, 0],
      [100, 3960],
    ]);
    // August has no checks: every detail 0, the total stays undistributed.
    expect(m1[2].details.map((d: { distributeAmount: number }) => d.distributeAmount)).toEqual([0, 0, 0]);
    // M2 has no way-5 park: a total but nothing to split.
    const m2 = data.find((r: { cardModelId: number; month: number }) => r.cardModelId === s.m2 && r.month === 4);
    expect(m2).toMatchObject({ parkCount: 0, details: [], validUserCount: 1, totalDistributeAmount: 653 });
  });

  it('allocates every allocation-enabled model when cardModelIds is empty or absent', async () => {
    const enabled = (
      await t.db
        .selectFrom('card_model')
        .select('id')
        .where('allocation_enabled', '=', true)
        .where('is_deleted', '=', false)
        .orderBy('id')
        .execute()
    ).map((r) => r.id);
    expect(enabled).toEqual(expect.arrayContaining([s.m1, s.m2]));
    expect(enabled).not.toContain(s.m3);
    for (const body of [
      { year: 2026, month: 5 },
      { year: 2026, month: 5, cardModelIds: [] },
    ]) {
      const data = await ok('previewCalc', body);
      expect(data.map((r: { cardModelId: number }) => r.cardModelId)).toEqual(enabled);
    }
  });
});

describe('executeCalc', () => {
  it('saves what the preview showed: batch, details and ledger, with execBy and an operation log', async () => {
    const body = { year: 2026, months: [5], cardModelIds: [s.m1, s.m2] };
    const preview = await ok('previewCalc', body);
    const saved = await ok('executeCalc', body);
    expect(saved).toHaveLength(2);
    for (const [i, b] of saved.entries()) {
      const { details, ...head } = preview[i];
      expect(b).toMatchObject({
        ...head,
        status: 1,
        execBy: platform.userId,
        isDeleted: false,
        createdBy: platform.userId,
      });
      expect(b.batchNo).toMatch(new RegExp(`^DA202605-${head.cardModelId}-[0-9a-f]{8}$`));
      expect(b.execTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      const st = await stored(2026, 5, head.cardModelId);
      expect(st.batches.map((r) => r.id)).toEqual([b.id]);
      expect(
        st.details.map((d) => ({
          parkId: d.park_id,
          parkName: d.park_name,
          checkNum: d.check_num,
          distributePercent: Number(d.distribute_percent),
          distributeAmount: d.distribute_amount,
        })),
      ).toEqual(details);
      const distributed = details.reduce((sum: number, d: { distributeAmount: number }) => sum + d.distributeAmount, 0);
      expect(st.ledger.map((l) => [l.batch_id, l.recognised_amount, l.distributed_amount])).toEqual([
        [b.id, head.totalDistributeAmount, distributed],
      ]);
    }
    // Details carry the park's owners, the scope of merchant and shop users.
    const m1Details = (await stored(2026, 5, s.m1)).details;
    expect(m1Details.map((d) => [d.merchant_id, d.shop_id])).toEqual([
      [s.merchantA, s.shopA1],
      [s.merchantA, s.shopA2],
      [s.merchantB, s.shopB1],
    ]);
    const log = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'biz_id', 'success', 'account_id'])
      .where('account_id', '=', platform.userId)
      .where('action', '=', '执行分配计算')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(log).toEqual({
      module: '月度分配',
      action: '执行分配计算',
      biz_id: saved.map((b: { id: number }) => b.id).join(','),
      success: true,
      account_id: platform.userId,
    });
  });

  it('leaves the whole total in the ledger when the month has no checks', async () => {
    const [b] = await ok('executeCalc', { year: 2026, month: 8, cardModelIds: [s.m1] });
    expect(b).toMatchObject({ validUserCount: 3, totalDistributeAmount: 3960, parkCount: 3 });
    const st = await stored(2026, 8, s.m1);
    expect(st.details.map((d) => d.distribute_amount)).toEqual([0, 0, 0]);
    expect(st.ledger.map((l) => [l.recognised_amount, l.distributed_amount])).toEqual([[3960, 0]]);
  });

  it('replaces the scope: the old batch is marked deleted, its details and ledger row go', async () => {
    const [first] = await ok('executeCalc', { year: 2026, month: 6, cardModelIds: [s.m1] });
    const [second] = await ok('executeCalc', {
      year: 2026,
      month: 6,
      cardModelIds: [s.m1],
      calcMode: 'fixed',
      fixedAmount: 100,
    });
    expect(second.id).not.toBe(first.id);
    expect(second).toMatchObject({ calcMode: 'fixed', fixedAmount: 100, ratio: null, totalDistributeAmount: 300 });
    const st = await stored(2026, 6, s.m1);
    expect(st.batches.map((b) => b.id)).toEqual([second.id]);
    expect(new Set(st.details.map((d) => d.batch_id))).toEqual(new Set([second.id]));
    expect(st.details.map((d) => d.distribute_amount)).toEqual([0, 0, 300]);
    expect(st.ledger.map((l) => [l.batch_id, l.recognised_amount])).toEqual([[second.id, 300]]);
    const old = await t.db
      .selectFrom('distribute_batch')
      .select(['is_deleted', 'updated_by'])
      .where('id', '=', first.id)
      .executeTakeFirstOrThrow();
    expect(old).toEqual({ is_deleted: true, updated_by: platform.userId });
    expect(await t.db.selectFrom('distribute_detail').select('id').where('batch_id', '=', first.id).execute()).toEqual(
      [],
    );
  });

  it('leaves exactly one batch per scope after five concurrent runs', async () => {
    const body = { year: 2026, months: [4, 5], cardModelIds: [s.m1] };
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => t.post(`${P}/executeCalc`, body, platform.token)));
    expect(answers.map((a) => a.body.errcode)).toEqual([0, 0, 0, 0, 0]);
    for (const month of [4, 5]) {
      const st = await stored(2026, month, s.m1);
      expect(st.batches).toHaveLength(1);
      expect(st.details).toHaveLength(3);
      expect(new Set(st.details.map((d) => d.batch_id))).toEqual(new Set([st.batches[0].id]));
      expect(st.ledger.map((l) => l.batch_id)).toEqual([st.batches[0].id]);
    }
  });

  it('rolls the whole run back when a later step fails: the scope keeps what it had', async () => {
    const [kept] = await ok('executeCalc', { year: 2026, month: 9, cardModelIds: [s.m1] });
    const before = await stored(2026, 9, s.m1);
    // A trigger refuses the ledger row of September, the last write of the run.
    await sql`create function alloc_test_refuse() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$`.execute(
      t.db,
    );
    await sql`create trigger alloc_test_refuse before insert on deferred_revenue_ledger for each row when (new.month = 9) execute function alloc_test_refuse()`.execute(
      t.db,
    );
    try {
      const res = await t.post(
        `${P}/executeCalc`,
        { year: 2026, months: [6, 9], cardModelIds: [s.m1], ratio: 50 },
        platform.token,
      );
      expect(res.body).toEqual({ errcode: 500, errmsg: 'internal server error' });
    } finally {
      await sql`drop trigger alloc_test_refuse on deferred_revenue_ledger`.execute(t.db);
      await sql`drop function alloc_test_refuse()`.execute(t.db);
    }
    expect(await stored(2026, 9, s.m1)).toEqual(before);
    expect(before.batches.map((b) => b.id)).toEqual([kept.id]);
    // June, written earlier in the same run, rolled back too.
    expect((await stored(2026, 6, s.m1)).batches.map((b) => b.ratio)).not.toContain(50);
    const failed = await t.db
      .selectFrom('operate_log')
      .select(['success', 'errcode'])
      .where('account_id', '=', platform.userId)
      .where('action', '=', '执行分配计算')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(failed).toEqual({ success: false, errcode: 500 });
  });
});

describe('year alone (spec A 2.5: only year is required)', () => {
  type Batch = {
    id: number;
    year: number;
    month: number;
    cardModelId: number;
    totalDistributeAmount: number;
    validUserCount: number;
  };

  /** Runs `work` with the service's clock (Date) at `iso`; requests are served in this process. */
  async function at<T>(iso: string, work: () => Promise<T>): Promise<T> {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date(iso));
      return await work();
    } finally {
      vi.useRealTimers();
    }
  }

  /** Every saved scope of the year: details sum to the total to the cent (0 without checks), the ledger agrees. */
  async function expectConserved(year: number, saved: Batch[]) {
    for (const b of saved) {
      const st = await stored(year, b.month, b.cardModelId);
      expect(st.batches.map((r) => r.id)).toEqual([b.id]);
      const distributed = st.details.reduce((sum, d) => sum + Number(d.distribute_amount), 0);
      const checks = st.details.reduce((sum, d) => sum + Number(d.check_num), 0);
      expect(distributed, `${year}-${b.month} model ${b.cardModelId}`).toBe(checks > 0 ? b.totalDistributeAmount : 0);
      expect(st.ledger.map((l) => [l.batch_id, Number(l.recognised_amount), Number(l.distributed_amount)])).toEqual([
        [b.id, b.totalDistributeAmount, distributed],
      ]);
    }
  }

  it('covers January to the current month of the current year, the month read in the service time zone', async () => {
    const models = [s.m1, s.m2];
    // 2026-03-31 16:30 UTC is 2026-04-01 00:30 in the service zone: April has begun.
    const april = await at('2026-03-31T16:30:00Z', () => ok('previewCalc', { year: 2026, cardModelIds: models }));
    expect(april.map((r: Batch) => [r.month, r.cardModelId])).toEqual(
      [1, 2, 3, 4].flatMap((m) => models.map((id) => [m, id])),
    );
    const m1 = april.filter((r: Batch) => r.cardModelId === s.m1);
    // c1 c2 c5 c7 are valid from January to April: ⌊4 × 19800 × 80 ÷ 1200⌋ = 5280; only April has a check (P3).
    expect(m1.map((r: Batch) => [r.validUserCount, r.totalDistributeAmount])).toEqual([
      [4, 5280],
      [4, 5280],
      [4, 5280],
      [4, 5280],
    ]);
    expect(
      m1.map((r: { details: Array<{ distributeAmount: number }> }) => r.details.map((d) => d.distributeAmount)),
    ).toEqual([
      [0, 0, 0],
      [0, 0, 0],
      [0, 0, 0],
      [0, 0, 5280],
    ]);
    // A minute before, still March there; an empty months list reads as absent.
    const march = await at('2026-03-31T15:59:00Z', () =>
      ok('previewCalc', { year: 2026, months: [], cardModelIds: models }),
    );
    expect([...new Set(march.map((r: Batch) => r.month))]).toEqual([1, 2, 3]);

    const saved: Batch[] = await at('2026-03-31T16:30:00Z', () =>
      ok('executeCalc', { year: 2026, cardModelIds: models }),
    );
    expect(saved.map((b) => [b.month, b.cardModelId])).toEqual(
      [1, 2, 3, 4].flatMap((m) => models.map((id) => [m, id])),
    );
    expect(saved.map(({ id: _i, ...b }) => b)).toMatchObject(
      april.map(({ details: _d, ...r }: { details: unknown }) => r),
    );
    await expectConserved(2026, saved);
    const log = await t.db
      .selectFrom('operate_log')
      .select(['biz_id', 'success'])
      .where('account_id', '=', platform.userId)
      .where('action', '=', '执行分配计算')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(log.success).toBe(true);
    expect(log.biz_id?.split(',')[0]).toBe(String(saved[0].id));
  });

  it('covers the twelve months of a past year in one transaction, each month split to the cent', async () => {
    // A card valid in November 2025 only, and November checks P1 2 : P2 3 : P3 0.
    const card = await createCard(t.db, {
      card_model_id: s.m1,
      active_time: '2025-11-01 00:00:00',
      expire_time: '2025-11-30 23:59:59',
    });
    await createCheck(t.db, { cardId: card, cardModelId: s.m1, park: s.p1, at: '2025-11-03 10:00:00', consumeNum: 2 });
    await createCheck(t.db, { cardId: card, cardModelId: s.m1, park: s.p2, at: '2025-11-30 23:59:59', consumeNum: 3 });
    const body = { year: 2025, cardModelIds: [s.m1, s.m2], ratio: 77 };

    // One transaction: a refusal of December's ledger row, the last write, leaves nothing of the year.
    await sql`create function alloc_test_refuse() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$`.execute(
      t.db,
    );
    await sql`create trigger alloc_test_refuse before insert on deferred_revenue_ledger for each row when (new.year = 2025 and new.month = 12) execute function alloc_test_refuse()`.execute(
      t.db,
    );
    try {
      expect((await t.post(`${P}/executeCalc`, body, platform.token)).body).toEqual({
        errcode: 500,
        errmsg: 'internal server error',
      });
    } finally {
      await sql`drop trigger alloc_test_refuse on deferred_revenue_ledger`.execute(t.db);
      await sql`drop function alloc_test_refuse()`.execute(t.db);
    }
    expect(await t.db.selectFrom('distribute_batch').select('id').where('year', '=', 2025).execute()).toEqual([]);
    expect(await t.db.selectFrom('deferred_revenue_ledger').select('id').where('year', '=', 2025).execute()).toEqual(
      [],
    );

    const preview = await ok('previewCalc', body);
    const saved: Batch[] = await ok('executeCalc', body);
    const months = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
    expect(saved.map((b) => [b.month, b.cardModelId])).toEqual(
      months.flatMap((m) => [
        [m, s.m1],
        [m, s.m2],
      ]),
    );
    expect(preview.map((r: Batch) => [r.month, r.cardModelId, r.totalDistributeAmount])).toEqual(
      saved.map((b) => [b.month, b.cardModelId, b.totalDistributeAmount]),
    );
    // Valid M1 users: c5 from January, c7 from May 20, c2 from June, the new card in November alone.
    // Totals ⌊n × 19800 × 77 ÷ 1200⌋ = ⌊n × 1270.5⌋; M2's one card starts in 2026.
    const users = [1, 1, 1, 1, 2, 3, 3, 3, 3, 3, 4, 3];
    const m1 = saved.filter((b) => b.cardModelId === s.m1);
    expect(m1.map((b) => [b.validUserCount, b.totalDistributeAmount])).toEqual(
      users.map((n) => [n, Math.floor((n * 19800 * 77) / 1200)]),
    );
    expect(saved.filter((b) => b.cardModelId === s.m2).map((b) => b.totalDistributeAmount)).toEqual(
      months.map(() => 0),
    );
    // November: 5082 over 2 : 3 : 0 → 2032 r 4, 3049 r 1: the cent left goes to P1.
    const nov = await stored(2025, 11, s.m1);
    expect(nov.details.map((d) => [Number(d.check_num), Number(d.distribute_amount)])).toEqual([
      [2, 2033],
      [3, 3049],
      [0, 0],
    ]);
    await expectConserved(2025, saved);

    // Run again: every scope of the year is replaced, one living batch each.
    const again: Batch[] = await ok('executeCalc', { ...body, ratio: 50 });
    expect(again).toHaveLength(24);
    await expectConserved(2025, again);
    const living = await t.db
      .selectFrom('distribute_batch')
      .select('id')
      .where('year', '=', 2025)
      .where('is_deleted', '=', false)
      .execute();
    expect(living.map((r) => r.id).sort((a, b) => a - b)).toEqual(again.map((b) => b.id).sort((a, b) => a - b));
  });

  it('answers an empty list for a future year: none of its months has begun, nothing is saved', async () => {
    await at('2026-03-31T16:30:00Z', async () => {
      for (const op of ['previewCalc', 'executeCalc']) expect(await ok(op, { year: 2027 })).toEqual([]);
      expect(await ok('executeCalc', { year: 2027, cardModelIds: [s.m1], months: [] })).toEqual([]);
      // The request is validated all the same.
      expect((await t.post(`${P}/executeCalc`, { year: 2027, calcMode: 'fixed' }, platform.token)).body.errmsg).toBe(
        'fixedAmount is required when calcMode is fixed',
      );
      expect(
        (await t.post(`${P}/previewCalc`, { year: 2027, cardModelIds: [s.m3] }, platform.token)).body.errcode,
      ).toBe(400);
      expect((await t.post(`${P}/executeCalc`, { year: 2027 }, merchantA.token)).body.errcode).toBe(403);
      // An explicit month of a future year is still computed, as before.
      expect(
        (await ok('previewCalc', { year: 2027, month: 1, cardModelIds: [s.m1] })).map((r: Batch) => r.month),
      ).toEqual([1]);
    });
    expect(await ok('previewCalc', { year: 2099 })).toEqual([]);
    expect(await t.db.selectFrom('distribute_batch').select('id').where('year', '=', 2027).execute()).toEqual([]);
    const log = await t.db
      .selectFrom('operate_log')
      .select(['biz_id', 'success'])
      .where('account_id', '=', platform.userId)
      .where('action', '=', '执行分配计算')
      .orderBy('id', 'desc')
      .limit(2)
      .execute();
    // The two empty runs are logged, naming no batch (the refused one last, by the pipeline).
    expect(log.some((l) => l.success && l.biz_id === null)).toBe(true);
  });
});

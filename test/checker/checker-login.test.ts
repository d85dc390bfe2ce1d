import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import bcrypt from 'bcryptjs';
import { hashToken } from '../../src/platform/auth/token-codec.js';
import { setCheckerStatus } from '../../src/modules/verifier/index.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import {
  createCardModel,
  createCardModelRule,
  createChecker,
  createCheckerConfig,
  createCheckerRelation,
  createMerchant,
  createShop,
  createSku,
  createSkuEntrance,
  createSpu,
  createTicketsSku,
  randomMobile,
  authoredBy,
} from '../helpers/factories.js';

const LOGIN = '/app-api/auth/checkerLogin';
const LOGOUT = '/app-api/auth/checkerLogout';
const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

describe('verifier login (POST /app-api/auth/checkerLogin)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  const login = (mobile: string, password: string) => t.post(LOGIN, { mobile, password });

  it('answers the tokens, the SKUs and entrances, the card-checked SKUs, tickets and configs, and records the login', async () => {
    const db = t.db;
    const merchantId = await createMerchant(db, { name: 'West Lake Scenic Co.' });
    const shopId = await createShop(db, { merchant_id: merchantId, name: 'West Lake Gate Office' });
    const spuA = await createSpu(db, { shop_id: shopId, name: 'West Lake' });
    const spuB = await createSpu(db, { shop_id: shopId, name: 'Lingyin Temple' });
    const skuA = await createSku(db, { goods_id: spuA, sku_name: 'West Lake entry' });
    const skuB = await createSku(db, { goods_id: spuB, sku_name: 'Lingyin entry' });
    const gateA1 = await createSkuEntrance(db, { sku_id: skuA, entrance_name: 'North gate' });
    const gateA2 = await createSkuEntrance(db, { sku_id: skuA, entrance_name: 'South gate' });
    await createSkuEntrance(db, { sku_id: skuA, entrance_name: 'Closed gate', is_deleted: true });
    const gateB1 = await createSkuEntrance(db, { sku_id: skuB, entrance_name: 'East gate', created_by: 7 });
    await createSkuEntrance(db, { sku_id: skuB, entrance_name: 'West gate' });
    const ticket = await createTicketsSku(db, {
      sku_id: skuA,
      sku_name: 'Adult ticket',
      tickets_id: 99,
      type_id: 'adult',
      book_type: 1,
      book_time_limit: '17:30:00',
      enter_start: '08:00:00',
      enter_end: '18:00:00',
      refund_days: 0,
      stock_num_type: true,
      created_by: 3,
    });
    await createTicketsSku(db, { sku_id: skuB, status: 3 });
    await createTicketsSku(db, { sku_id: skuA, is_deleted: true });
    // An enabled model admits West Lake; Lingyin only through a disabled model and a deleted rule.
    await createCardModelRule(db, { card_model_id: await createCardModel(db), resource_id: spuA });
    await createCardModelRule(db, { card_model_id: await createCardModel(db, { status: 0 }), resource_id: spuB });
    await createCardModelRule(db, { card_model_id: await createCardModel(db), resource_id: spuB, is_deleted: true });

    const checker = await createChecker(db, {
      merchant_id: merchantId,
      shop_id: shopId,
      name: 'Wang Wu',
      ssk_flag: true,
    });
    await createCheckerRelation(db, { checker_id: checker.id, sku_id: skuA, entrance_id: null });
    await createCheckerRelation(db, { checker_id: checker.id, sku_id: skuB, entrance_id: gateB1 });
    const configId = await createCheckerConfig(db, {
      checker_id: checker.id,
      config_type: 2,
      item: 'voice',
      value: 'on',
      remark: 'read names aloud',
    });
    await createCheckerConfig(db, { checker_id: checker.id, is_deleted: true });

    const res = await login(checker.mobile, checker.password);
    expect(res.status).toBe(200);
    expect(res.body.errcode).toBe(0);
    const d = res.body.data;

    const entrance = (id: number, skuId: number, goodsId: number, name: string, createdBy: string | null) => ({
      id,
      skuId,
      entranceName: name,
      merchantId,
      shopId,
      goodsId,
      createdBy,
      createdTime: expect.stringMatching(DATE_TIME),
    });
    const westLake = {
      id: skuA,
      skuName: 'West Lake entry',
      entrenceList: [
        entrance(gateA1, skuA, spuA, 'North gate', null),
        entrance(gateA2, skuA, spuA, 'South gate', null),
      ],
    };
    const lingyin = {
      id: skuB,
      skuName: 'Lingyin entry',
      entrenceList: [entrance(gateB1, skuB, spuB, 'East gate', '7')],
    };
    expect(d).toEqual({
      userId: checker.id,
      checkerName: 'Wang Wu',
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      expiresTime: expect.stringMatching(DATE_TIME),
      shopName: 'West Lake Gate Office',
      merchantName: 'West Lake Scenic Co.',
      sskFlag: true,
      skuInfo: [westLake, lingyin],
      cqySkuList: [westLake],
      ticketsSkuList: [
        expect.objectContaining({
          id: ticket,
          merchantId,
          shopId,
          ticketsId: 99,
          skuName: 'Adult ticket',
          typeId: 'adult',
          bookType: 1,
          bookTimeLimit: '17:30:00',
          enterStart: '08:00:00',
          enterEnd: '18:00:00',
          refundDays: 0,
          refundTime: null,
          stockNumType: true,
          stockDateType: null,
          basePrice: 10000,
          status: '1',
          isDeleted: false,
          createdBy: '3',
          updatedBy: null,
          createdTime: expect.stringMatching(DATE_TIME),
          updatedTime: expect.stringMatching(DATE_TIME),
        }),
      ],
      configList: [
        {
          id: configId,
          checkerId: checker.id,
          configType: 2,
          item: 'voice',
          value: 'on',
          remark: 'read names aloud',
          isDeleted: false,
          createdTime: expect.stringMatching(DATE_TIME),
        },
      ],
    });
    expect(Object.keys(d.ticketsSkuList[0])).toHaveLength(39);

    // only the database shows the login IP and the login stamps to the millisecond (the relations' too)
    const row = await db
      .selectFrom('checker')
      .select(['last_login_at', 'last_login_ip'])
      .where('id', '=', checker.id)
      .executeTakeFirstOrThrow();
    expect(Date.now() - row.last_login_at!.getTime()).toBeLessThan(60_000);
    expect(row.last_login_ip).toBe('127.0.0.1');
    const relations = await db
      .selectFrom('checker_relation')
      .select('last_login_at')
      .where('checker_id', '=', checker.id)
      .execute();
    expect(relations).toHaveLength(2);
    expect(relations.every((r) => r.last_login_at?.getTime() === row.last_login_at!.getTime())).toBe(true);

    // only the database shows the login log and the operation log
    const logins = await db
      .selectFrom('login_log')
      .selectAll()
      .where('account_kind', '=', 'checker')
      .where('account_id', '=', checker.id)
      .execute();
    expect(logins).toEqual([expect.objectContaining({ username: checker.mobile, success: true, errcode: 0 })]);
    const ops = await db
      .selectFrom('operate_log')
      .selectAll()
      .where('account_kind', '=', 'checker')
      .where('account_id', '=', checker.id)
      .execute();
    expect(ops).toEqual([
      expect.objectContaining({
        module: '核销员',
        action: '核销员登录',
        account_name: 'Wang Wu',
        biz_id: String(checker.id),
        success: true,
        errcode: 0,
        path: LOGIN,
      }),
    ]);
  });

  it('answers empty lists for a verifier without relations or configs', async () => {
    const checker = await createChecker(t.db);
    const res = await login(checker.mobile, checker.password);
    expect(res.body.errcode).toBe(0);
    expect(res.body.data).toMatchObject({
      shopName: null,
      sskFlag: false,
      skuInfo: [],
      cqySkuList: [],
      ticketsSkuList: [],
      configList: [],
    });
  });

  it('gives a wrong password and an unknown mobile the same answer, and logs both failures', async () => {
    const checker = await createChecker(t.db);
    const wrong = await login(checker.mobile, 'not-the-password');
    const unknown = await login(randomMobile(), 'whatever');
    expect(wrong.body).toEqual({ errcode: 1002000000, errmsg: unknown.body.errmsg });
    expect(unknown.body.errcode).toBe(1002000000);
    expect(wrong.status).toBe(200);
    // only the database shows the login log
    const failed = await t.db
      .selectFrom('login_log')
      .select(['account_id', 'success'])
      .where('account_kind', '=', 'checker')
      .where('success', '=', false)
      .where('username', 'in', [checker.mobile])
      .execute();
    expect(failed).toEqual([{ account_id: checker.id, success: false }]);
  });

  it('tells a disabled verifier so only after a correct password, and prefers the active verifier of a mobile', async () => {
    const disabled = await createChecker(t.db, { status: 0 });
    expect((await login(disabled.mobile, 'wrong-password')).body.errcode).toBe(1002000000);
    expect((await login(disabled.mobile, disabled.password)).body).toEqual({
      errcode: 1002000001,
      errmsg: 'this account is disabled',
    });

    const active = await createChecker(t.db, { mobile: disabled.mobile, password: 'Another@Pass1' });
    const res = await login(disabled.mobile, 'Another@Pass1');
    expect(res.body.errcode).toBe(0);
    expect(res.body.data.userId).toBe(active.id);
  });

  it('locks the verifier for its failing address for 10 minutes after five failed logins, refusing even the right password there', async () => {
    const checker = await createChecker(t.db);
    const from = (remoteAddress: string, password: string) =>
      t.app
        .inject({ method: 'POST', url: LOGIN, remoteAddress, payload: { mobile: checker.mobile, password } })
        .then((r) => r.json());
    for (let i = 0; i < 4; i++) expect((await from('10.30.0.1', `wrong-${i}`)).errcode).toBe(1002000000);
    const fifth = await from('10.30.0.1', 'wrong-5');
    expect(fifth.errcode).toBe(423);
    expect(fifth.errmsg).toMatch(/locked.*10 minutes/);
    expect((await from('10.30.0.1', checker.password)).errcode).toBe(423);
    expect((await from('10.30.0.2', checker.password)).errcode).toBe(0);

    // Once the lock has run out the right password works there too, and the count starts again.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 10 * 60_000 + 1000);
      expect((await from('10.30.0.1', checker.password)).errcode).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it.each(['$2a$', '$2b$'])(
    'accepts a %s bcrypt hash from the Java system and re-hashes it with argon2id',
    async (prefix) => {
      const hash = prefix + bcrypt.hashSync('Legacy@Pass1', 4).slice(4);
      const checker = await createChecker(t.db, { password_hash: hash, password: 'Legacy@Pass1' });
      expect((await login(checker.mobile, 'Legacy@Pass1')).body.errcode).toBe(0);
      // only the database shows the password hash
      const row = await t.db
        .selectFrom('checker')
        .select('password_hash')
        .where('id', '=', checker.id)
        .executeTakeFirstOrThrow();
      expect(row.password_hash).toMatch(/^\$argon2id\$/);
      expect((await login(checker.mobile, 'Legacy@Pass1')).body.errcode).toBe(0);
      expect((await login(checker.mobile, 'wrong')).body.errcode).toBe(1002000000);
    },
  );

  it('rejects a missing field or a bad type with errcode 400 naming the field', async () => {
    const missing = await t.post(LOGIN, { mobile: '13800000000' });
    expect(missing.body.errcode).toBe(400);
    expect(missing.body.errmsg).toContain('password');
    const badType = await t.post(LOGIN, { mobile: { n: 1 }, password: 'x' });
    expect(badType.body.errcode).toBe(400);
    expect(badType.body.errmsg).toContain('mobile');
    const empty = await t.post(LOGIN, { mobile: '', password: 'x' });
    expect(empty.body.errcode).toBe(400);
    expect(empty.body.errmsg).toContain('mobile');
  });

  it('accepts the body wrapped under "body"', async () => {
    const checker = await createChecker(t.db);
    expect((await t.post(LOGIN, { body: { mobile: checker.mobile, password: checker.password } })).body.errcode).toBe(
      0,
    );
  });
});

describe('verifier session', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  async function loginNew() {
    const checker = await createChecker(t.db);
    const res = await t.post(LOGIN, { mobile: checker.mobile, password: checker.password });
    expect(res.body.errcode).toBe(0);
    return { checker, ...(res.body.data as { accessToken: string; refreshToken: string }) };
  }

  it('ends at logout: the token is refused at once, and the logout is logged', async () => {
    const { checker, accessToken } = await loginNew();
    expect((await t.post(LOGOUT, {}, accessToken)).body).toEqual({ errcode: 0, errmsg: 'success' });
    expect((await t.post(LOGOUT, {}, accessToken)).body.errcode).toBe(401);
    // only the database shows the operation log
    const ops = await t.db
      .selectFrom('operate_log')
      .select(['action', 'success'])
      .where('account_id', '=', checker.id)
      .where('account_kind', '=', 'checker')
      .orderBy('id')
      .execute();
    expect(ops).toEqual([
      { action: '核销员登录', success: true },
      { action: '核销员退出', success: true },
    ]);
  });

  it('refuses logout without a token', async () => {
    expect((await t.post(LOGOUT, {})).body.errcode).toBe(401);
  });

  it('serves /app-api only: a verifier token is refused on /manage-api and /mp-api', async () => {
    const { accessToken } = await loginNew();
    const manage = await t.post('/manage-api/region/queryRegionTree', {}, accessToken);
    expect(manage.body.errcode).toBe(401);
    const mp = await t.post('/mp-api/auth/logout', {}, accessToken);
    expect(mp.body.errcode).toBe(401);
    expect((await t.post(LOGOUT, {}, accessToken)).body.errcode).toBe(0);
  });

  it('ends when the verifier is disabled and its cached session is gone', async () => {
    const { checker, accessToken } = await loginNew();
    // the verifier owner's own write, not updateCheckerStatus, which revokes the sessions itself: this is about the session reload
    await setCheckerStatus(t.db, checker.id, 0, authoredBy());
    // The store keeps the session until it expires; an operator disabling a verifier also revokes it.
    await t.store.del(`sess:${hashToken(accessToken)}`);
    expect((await t.post(LOGOUT, {}, accessToken)).body.errcode).toBe(401);
  });

  it('rotates both tokens through /app-api/auth/refreshToken; the old refresh token then fails', async () => {
    const { checker, refreshToken } = await loginNew();
    const res = await t.post('/app-api/auth/refreshToken', { refreshToken });
    expect(res.body.errcode).toBe(0);
    expect(res.body.data).toEqual({
      userId: checker.id,
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      expiresTime: expect.stringMatching(DATE_TIME),
    });
    expect(res.body.data.refreshToken).not.toBe(refreshToken);
    expect((await t.post('/app-api/auth/refreshToken', { refreshToken })).body.errcode).toBe(401);
    expect((await t.post(LOGOUT, {}, res.body.data.accessToken)).body.errcode).toBe(0);
  });
});

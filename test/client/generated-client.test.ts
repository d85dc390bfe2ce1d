import { readFileSync } from 'node:fs';
import createClient, { type Client } from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/platform/openapi/register.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { TEST_ADMIN } from '../helpers/test-env.js';
import { CLIENT_TYPES_FILE, generateClientTypes } from './generate-types.js';
import type { paths } from './openapi-types.js';

/**
 * An integrator's client: types generated from /openapi.json by openapi-typescript, calls made by
 * openapi-fetch over real HTTP. It runs the main flows an operator, a verifier and a member go through,
 * written only against the generated types (`npm run typecheck` checks this file against them), so a
 * document that stops describing the service breaks the build or this test.
 */
let t: TestApp;
let api: Client<paths>;

/** The data of a success, or a failure naming the refusal (the envelope is a union of the two). */
function ok<T extends { errcode: number; errmsg: string }>(answer: {
  data?: T;
  error?: unknown;
}): Extract<T, { errcode: 0 }> {
  const body = answer.data;
  if (!body || body.errcode !== 0) throw new Error(`refused: ${JSON.stringify(body ?? answer.error)}`);
  return body as Extract<T, { errcode: 0 }>;
}

beforeAll(async () => {
  t = await createTestApp();
  const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
  api = createClient<paths>({ baseUrl: address });
});
afterAll(() => t?.close());

describe('a client generated from the OpenAPI document', () => {
  it('is generated from the document the service publishes (run npm run openapi:types after changing a route)', async () => {
    const committed = readFileSync(CLIENT_TYPES_FILE, 'utf8');
    expect(await generateClientTypes(openApiDocument(t.app))).toBe(committed);
  });

  it('runs the operator, verifier and member flows: staff login, the platform from empty, a check-in, a member, a settlement page', async () => {
    // Staff login through the captcha, as a person reads the image.
    const image = await api.GET('/manage-api/auth/getRandomCodeImg', { parseAs: 'arrayBuffer' });
    expect(image.response.headers.get('content-type')).toBe('image/png');
    const key = image.response.headers.get('x-captcha-key')!;
    const code = (await t.store.get(`captcha:${key}`))!;
    const login = ok(
      await api.POST('/manage-api/auth/login', {
        body: { username: TEST_ADMIN.username, password: TEST_ADMIN.password, code, uuid: key },
      }),
    );
    const staff = { headers: { Authorization: `Bearer ${login.data.accessToken}` } };

    // The platform from an empty database (README, "Start from an empty database").
    const suffix = Date.now().toString(36);
    const merchant = ok(
      await api.POST('/manage-api/merchant/addMerchant', {
        ...staff,
        body: { name: `Client scenic ${suffix}`, merchantType: 2 },
      }),
    ).data;
    const shop = ok(
      await api.POST('/manage-api/shop/addShop', {
        ...staff,
        body: { merchantId: merchant.id, name: `Client shop ${suffix}`, status: 1 },
      }),
    ).data;
    const spu = ok(
      await api.POST('/manage-api/spu/addSpu', {
        ...staff,
        body: { name: `Client spot ${suffix}`, shopId: shop.id, resourceType: 2, status: 1 },
      }),
    ).data;
    const sku = ok(
      await api.POST('/manage-api/sku/addSku', {
        ...staff,
        body: { goodsId: spu.id, skuName: 'Entry', skuEntranceList: [{ entranceName: 'North gate' }] },
      }),
    ).data;
    const checker = ok(
      await api.POST('/manage-api/checker/addChecker', {
        ...staff,
        body: { mobile: '13700001234', name: 'Gate keeper', shopId: shop.id, relations: [{ skuId: sku.id }] },
      }),
    ).data;
    const model = ok(
      await api.POST('/manage-api/cardModel/addCardModel', {
        ...staff,
        body: { name: `Client card ${suffix}`, price: 19_800, validityMonths: 12 },
      }),
    ).data;
    const rule = ok(
      await api.POST('/manage-api/cardModel/addCardModelRule', {
        ...staff,
        body: { cardModelId: model.id, resourceId: spu.id, settlementWay: 1, buyPrice: 2_700 },
      }),
    ).data;
    const today = new Date().toLocaleDateString('sv-SE', { timeZone: 'Asia/Shanghai' });
    const year = Number(today.slice(0, 4));
    ok(
      await api.POST('/manage-api/cardModel/addCardModelRulePrice', {
        ...staff,
        body: { ruleId: rule.id, startDate: `${year}-01-01`, endDate: `${year}-12-31`, price: 2_500 },
      }),
    );
    const batch = ok(
      await api.POST('/manage-api/card/generateCardBatch', {
        ...staff,
        body: { cardModelId: model.id, count: 3, medium: 2 },
      }),
    ).data;
    const cards = ok(await api.POST('/manage-api/card/queryCardPage', { ...staff, body: { batchId: batch.id } })).data;
    expect(cards.total).toBe(3);
    const cardNumber = cards.list[0].cardNumber;
    ok(await api.POST('/manage-api/card/activateCard', { ...staff, body: { cardNumber, channel: 1 } }));
    ok(
      await api.POST('/manage-api/card/bindCard', {
        ...staff,
        body: { cardNumber, name: '张三', phone: '13900001111', idType: 1, idNo: '11010519491231002X' },
      }),
    );

    // The verifier checks the card in at the gate; a second scan the same day is refused with its own code.
    const gate = ok(
      await api.POST('/app-api/auth/checkerLogin', { body: { mobile: '13700001234', password: checker.password } }),
    ).data;
    const app = { headers: { Authorization: `Bearer ${gate.accessToken}` } };
    const check = ok(
      await api.POST('/app-api/checker/addCheckerConsumeRecord', { ...app, body: { skuId: sku.id, cardNumber } }),
    ).data;
    expect(check.cardNum).toBe(cardNumber);
    const again = await api.POST('/app-api/checker/addCheckerConsumeRecord', {
      ...app,
      body: { skuId: sku.id, cardNumber },
    });
    expect(again.data?.errcode).toBe(1_013_000_007);
    const stat = ok(
      await api.GET('/app-api/checker/cardCheckStat', { ...app, params: { query: { skuId: sku.id } } }),
    ).data;
    expect(stat.dayCardCheckCnt).toBe(1);

    // A member logs in on the mini program and reads its profile.
    const member = ok(await api.POST('/mp-api/auth/oauth2', { body: { code: `client-${suffix}` } })).data;
    const profile = ok(
      await api.POST('/mp-api/member/getMember', { headers: { Authorization: `Bearer ${member.accessToken}` } }),
    ).data;
    expect(profile.openId).toBe(member.openId);

    // Estimation of the month, submitted as a settlement order, read back on the settlement page.
    const period = [`${today.slice(0, 8)}01 00:00:00`, `${today} 23:59:59`];
    const estimation = ok(
      await api.POST('/manage-api/estimation/calcEstimationCard', {
        ...staff,
        body: { cardModelId: model.id, profit: 1_000, issueNum: 3, estimationPeriod: period },
      }),
    ).data;
    expect(estimation.checkNum).toBe(1);
    ok(await api.POST('/manage-api/estimation/submitEstimationCard', { ...staff, body: { id: estimation.id } }));
    const page = ok(
      await api.POST('/manage-api/settlement/querySettlementCardPage', {
        ...staff,
        body: { pageNum: 1, pageSize: 10 },
      }),
    ).data;
    const order = page.list.find((o) => o.cardModelName === model.name);
    expect(order?.settlementStatus).toBe(1);
    const detailPage = ok(
      await api.POST('/manage-api/settlement/getSettlementCard', { ...staff, body: { id: order!.id } }),
    ).data;
    expect(detailPage.checkNum).toBe(1);
  });
});

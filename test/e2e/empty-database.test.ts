import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { idCardCheckDigit } from '../../src/platform/id-document.js';

/**
 * Issue 15's acceptance path: from a database holding only the bootstrap administrator, an operator
 * sets the platform up through HTTP alone — a scenic-spot merchant, its shop (addShop), the scenic
 * spot (addSpu + addSku with a gate), a merchant administrator with a role, a verifier related to the
 * spot, a card model admitting the spot, a batch of cards, one card activated and bound — and the
 * verifier logs in on the app and checks the card in at the spot. Runs on PGlite and on PostgreSQL.
 *
 * Shapes of addShop/addSpu/addSku (spec B 2.6) and of the check-in (docs/domain.md §4) are those of the
 * catalog and check-in modules.
 */
const M = '/manage-api';

let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = (await t.loginStaff()).accessToken;
});
afterAll(() => t?.close());

async function ok<T = any>(path: string, body: unknown, token = admin): Promise<T> {
  const res = await t.post(path, body, token);
  expect(res.body.errcode, `${path}: ${res.body.errmsg}`).toBe(0);
  return res.body.data as T;
}

/** The shop addShop made: its answer when it carries the id, else found by the shop page. */
async function shopIdOf(answer: any, merchantId: number, name: string): Promise<number> {
  const direct = answer?.id ?? answer?.shopId ?? answer?.shop?.id;
  if (typeof direct === 'number') return direct;
  const page = await ok(`${M}/shop/queryShopPage`, { merchantId, name, pageSize: 10 });
  const shop = page.list.find((s: { name: string }) => s.name === name);
  expect(shop, 'the shop addShop made').toBeDefined();
  return shop.id;
}

describe('from an empty database to a check-in, through HTTP only', () => {
  it('sets the platform up and checks a card in at the scenic spot', async () => {
    // Empty: no business records, only the bootstrap administrator.
    const count = async (table: 'merchant' | 'card' | 'checker' | 'card_model') =>
      Number(
        (
          await t.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect([await count('merchant'), await count('card'), await count('checker'), await count('card_model')]).toEqual([
      0, 0, 0, 0,
    ]);

    // 1. The scenic-spot operator and its shop.
    const merchant = await ok(`${M}/merchant/addMerchant`, {
      name: '青山湖文旅集团',
      merchantType: 2,
      contactName: '王经理',
      contactPhone: '0571-88886666',
    });
    const shopName = '青山湖森林公园';
    const shopAnswer = await ok(`${M}/shop/addShop`, {
      merchantId: merchant.id,
      name: shopName,
      status: 1,
      address: '青山湖路 1 号',
      linkman: '票务主管',
    });
    const shopId = await shopIdOf(shopAnswer, merchant.id, shopName);

    // 2. The scenic spot: a resource of type 2 and the SKU verifiers check at, with a gate.
    const spu = await ok(`${M}/spu/addSpu`, { name: shopName, shopId, resourceType: 2, status: 1, costPrice: 6000 });
    const sku = await ok(`${M}/sku/addSku`, {
      goodsId: spu.id,
      skuName: `${shopName}门票`,
      showPrice: 6000,
      buyPrice: 6000,
      mold: 1,
      skuEntranceList: [{ entranceName: '东门' }],
    });
    const entranceId: number | undefined = sku.skuEntranceList?.[0]?.id;

    // 3. The merchant's own administrator, with a role of verifier permissions; it logs in with its first password.
    const role = await ok(`${M}/system/role/addRole`, {
      name: '景区管理员',
      permissions: ['checker:read', 'checker:write'],
      merchantId: merchant.id,
    });
    const manager = await ok(`${M}/system/user/addUser`, {
      username: 'qingshan_admin',
      userType: 2,
      merchantId: merchant.id,
      nickname: '景区管理员',
      roleIds: [role.id],
    });
    const managerToken = (await t.loginStaff(manager.username, manager.password)).accessToken;

    // 4. A verifier related to the spot (all its gates), added by the merchant's administrator.
    const verifier = await ok(
      `${M}/checker/addChecker`,
      { mobile: '13800000001', name: '东门检票员', shopId, relations: [{ skuId: sku.id }] },
      managerToken,
    );
    expect(verifier.relations).toEqual([expect.objectContaining({ skuId: sku.id, entranceId: null })]);

    // 5. A platform card model admitting the spot, settled by check count, with its price period.
    const model = await ok(`${M}/cardModel/addCardModel`, {
      name: '畅游年卡',
      price: 19800,
      validityMonths: 12,
      allocationEnabled: true,
    });
    const rule = await ok(`${M}/cardModel/addCardModelRule`, {
      cardModelId: model.id,
      resourceId: spu.id,
      settlementWay: 1,
      buyPrice: 2700,
      settlementFactor: 0.9,
      dailyCheckLimit: 1,
    });
    const year = new Date().getFullYear();
    await ok(`${M}/cardModel/addCardModelRulePrice`, {
      ruleId: rule.id,
      startDate: `${year}-01-01`,
      endDate: `${year}-12-31`,
      price: 2700,
      settlementFactor: 0.9,
    });

    // 6. Cards: a batch of electronic cards held by the platform, one activated and bound to a holder.
    const batch = await ok(`${M}/card/generateCardBatch`, { cardModelId: model.id, count: 20, medium: 2 });
    const cards = await ok(`${M}/card/queryCardPage`, { batchId: batch.id, pageSize: 1 });
    expect(cards.total).toBe(20);
    const cardNumber: string = cards.list[0].cardNumber;
    await ok(`${M}/card/activateCard`, { cardNumber, channel: 1 });
    const first17 = '33010619900307123';
    const holder = { name: '李雷', phone: '13912345678', idType: 1, idNo: first17 + idCardCheckDigit(first17) };
    const bound = await ok(`${M}/card/bindCard`, { cardNumber, ...holder });
    expect(bound).toMatchObject({ status: 2, activated: true, holder: { name: '李雷', phone: '13912345678' } });

    // 7. The verifier logs in on the app with its generated password and sees the spot.
    const login = await t.post('/app-api/auth/checkerLogin', { mobile: '13800000001', password: verifier.password });
    expect(login.body.errcode, login.body.errmsg).toBe(0);
    expect(login.body.data.skuInfo.map((s: { id: number }) => s.id)).toEqual([sku.id]);
    expect(login.body.data.cqySkuList.map((s: { id: number }) => s.id)).toEqual([sku.id]);
    const app = login.body.data.accessToken as string;

    // 8. The check-in at the spot.
    const check = await t.post(
      '/app-api/checker/addCheckerConsumeRecord',
      {
        skuId: sku.id,
        ...(entranceId ? { entranceId } : {}),
        cardNumber,
        consumeNum: 1,
        checkType: 1,
      },
      app,
    );
    expect(check.body.errcode, check.body.errmsg).toBe(0);
    expect(JSON.stringify(check.body.data)).toContain('李雷');
    const rows = await t.db
      .selectFrom('card_check')
      .select(['sku_id', 'resource_id', 'checker_id', 'tourist_name', 'card_model_id'])
      .execute();
    expect(rows).toEqual([
      { sku_id: sku.id, resource_id: spu.id, checker_id: verifier.id, tourist_name: '李雷', card_model_id: model.id },
    ]);

    // The daily limit of the rule holds: a second check today is refused.
    const again = await t.post(
      '/app-api/checker/addCheckerConsumeRecord',
      { skuId: sku.id, cardNumber, consumeNum: 1, checkType: 1 },
      app,
    );
    expect(again.body.errcode).not.toBe(0);
  });
});

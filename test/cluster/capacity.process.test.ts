import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/platform/db/database.js';
import {
  createCard,
  createCardBinding,
  createCardModel,
  createCardModelRule,
  createChecker,
  createCheckerRelation,
  createMerchant,
  createShop,
  createSku,
  createSpu,
  uniq,
} from '../helpers/factories.js';
import { adminToken, call, newClientIp, PG_URL, REDIS_URL, startCluster, type Cluster } from './cluster.js';

/**
 * A spot's capacity on two server processes sharing one PostgreSQL and one Redis
 * (docs/adr/0105-exact-spot-capacity.md): concurrent check-ins spread over both never pass it, and a
 * capacity set on one while both scan keeps the count exact. Skipped without DATABASE_URL and REDIS_URL.
 */

const CHECK_IN = '/app-api/checker/addCheckerConsumeRecord';
let cluster: Cluster;
let one: string;
let two: string;
let admin: string;

interface Spot {
  skuId: number;
  modelId: number;
  token: string;
}

async function spotWithVerifier(db: Db): Promise<Spot> {
  const merchantId = await createMerchant(db);
  const shopId = await createShop(db, { merchant_id: merchantId });
  const spuId = await createSpu(db, { shop_id: shopId, name: `Peak ${uniq()}` });
  const skuId = await createSku(db, { goods_id: spuId, sku_name: `Peak entry ${uniq()}` });
  const modelId = await createCardModel(db, { name: `Peak card ${uniq()}` });
  await createCardModelRule(db, { card_model_id: modelId, resource_id: spuId, daily_check_limit: 1 });
  const checker = await createChecker(db, { merchant_id: merchantId, shop_id: shopId });
  await createCheckerRelation(db, { checker_id: checker.id, sku_id: skuId, entrance_id: null });
  const login = await call(
    one,
    '/app-api/auth/checkerLogin',
    { mobile: checker.mobile, password: checker.password },
    { ip: newClientIp() },
  );
  expect(login.body.errcode, login.body.errmsg).toBe(0);
  return { skuId, modelId, token: login.body.data.accessToken as string };
}

async function cardNumbers(db: Db, modelId: number, n: number): Promise<string[]> {
  const numbers: string[] = [];
  for (let i = 0; i < n; i++) {
    const cardNumber = uniq('87').slice(0, 20);
    const cardId = await createCard(db, { card_model_id: modelId, card_number: cardNumber });
    await createCardBinding(db, {
      card_id: cardId,
      name: 'Holder',
      phone: '13900000002',
      id_no: uniq('3302').slice(0, 18).toUpperCase(),
      id_type: 1,
    });
    numbers.push(cardNumber);
  }
  return numbers;
}

const scanAll = (spot: Spot, numbers: string[]) =>
  Promise.all(
    numbers.map((cardNumber, i) =>
      call(i % 2 ? two : one, CHECK_IN, { skuId: spot.skuId, cardNumber }, { token: spot.token }),
    ),
  ).then((answers) => answers.map((a) => a.body.errcode));

async function setCapacity(base: string, body: unknown): Promise<void> {
  const res = await call(base, '/manage-api/checker/setSpotCapacity', body, { token: admin });
  expect(res.body, res.body.errmsg).toEqual({ errcode: 0, errmsg: 'success' });
}

describe.skipIf(!PG_URL || !REDIS_URL)(
  'capacity on two server processes (skipped unless DATABASE_URL and REDIS_URL are set)',
  () => {
    beforeAll(async () => {
      cluster = await startCluster({ from: 'template' });
      [one, two] = cluster.servers.map((s) => s.base);
      admin = await adminToken(cluster.store, two);
    }, 180_000);
    afterAll(async () => {
      await cluster?.close();
    });

    const living = async (skuId: number) =>
      (await cluster.database.db.selectFrom('card_check').select('id').where('sku_id', '=', skuId).execute()).length;
    const counter = async (skuId: number, slot = -1) =>
      (
        await cluster.database.db
          .selectFrom('spot_admission_count')
          .select('admitted')
          .where('sku_id', '=', skuId)
          .where('slot_minute', '=', slot)
          .executeTakeFirst()
      )?.admitted;

    it('60 concurrent check-ins of distinct cards over both, day capacity 25: exactly 25 pass', async () => {
      const db = cluster.database.db;
      const spot = await spotWithVerifier(db);
      await setCapacity(one, { skuId: spot.skuId, dailyCapacity: 25 });
      const codes = await scanAll(spot, await cardNumbers(db, spot.modelId, 60));
      expect(codes.filter((c) => c === 0)).toHaveLength(25);
      expect(codes.filter((c) => c === 1_013_000_016)).toHaveLength(35);
      expect(await living(spot.skuId)).toBe(25);
      expect(await counter(spot.skuId)).toBe(25);
    });

    it('a slot capacity of 12 over both: exactly 12 pass', async () => {
      const db = cluster.database.db;
      const spot = await spotWithVerifier(db);
      await setCapacity(two, {
        skuId: spot.skuId,
        dailyCapacity: null,
        slots: [{ startTime: '00:00', endTime: '24:00', capacity: 12 }],
      });
      const codes = await scanAll(spot, await cardNumbers(db, spot.modelId, 40));
      expect(codes.filter((c) => c === 0)).toHaveLength(12);
      expect(codes.filter((c) => c === 1_013_000_017)).toHaveLength(28);
      expect(await counter(spot.skuId, 0)).toBe(12);
    });

    it('a capacity set on one process while both scan counts every admission exactly', async () => {
      const db = cluster.database.db;
      const spot = await spotWithVerifier(db);
      const numbers = await cardNumbers(db, spot.modelId, 81);
      await scanAll(spot, numbers.slice(0, 20));
      // set while scans are in flight on both processes: those before it and after it all count
      const [codes] = await Promise.all([
        scanAll(spot, numbers.slice(20, 60)),
        setCapacity(one, { skuId: spot.skuId, dailyCapacity: 80 }),
      ]);
      expect(codes.every((c) => c === 0)).toBe(true);
      expect(await scanAll(spot, numbers.slice(60, 80))).toEqual(Array(20).fill(0));
      expect(await living(spot.skuId)).toBe(80);
      expect(await counter(spot.skuId)).toBe(80);
      expect(await scanAll(spot, numbers.slice(80))).toEqual([1_013_000_016]);
    });
  },
);

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/platform/db/database.js';
import { admittedCount, CHECK_IN, heldCard } from '../checker/checkin-fixtures.js';
import { adminToken, call, PG_URL, REDIS_URL, startCluster, type Cluster } from './cluster.js';
import { spotWithVerifier } from './verifier-spot.js';

/**
 * A spot's capacity on two server processes sharing one PostgreSQL and one Redis
 * (docs/adr/0105-exact-spot-capacity.md): concurrent check-ins spread over both never pass it, and a
 * capacity set on one while both scan keeps the count exact. Skipped without DATABASE_URL and REDIS_URL.
 */

let cluster: Cluster;
let one: string;
let two: string;
let admin: string;

type Spot = Awaited<ReturnType<typeof spotWithVerifier>>;

async function cardNumbers(db: Db, modelId: number, n: number): Promise<string[]> {
  const numbers: string[] = [];
  for (let i = 0; i < n; i++) numbers.push((await heldCard(db, modelId)).cardNumber);
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
    const counter = (skuId: number, slot = -1) => admittedCount(cluster.database.db, skuId, slot);

    it('60 concurrent check-ins of distinct cards over both, day capacity 25: exactly 25 pass', async () => {
      const db = cluster.database.db;
      const spot = await spotWithVerifier(db, one);
      await setCapacity(one, { skuId: spot.skuId, dailyCapacity: 25 });
      const codes = await scanAll(spot, await cardNumbers(db, spot.modelId, 60));
      expect(codes.filter((c) => c === 0)).toHaveLength(25);
      expect(codes.filter((c) => c === 1_013_000_016)).toHaveLength(35);
      expect(await living(spot.skuId)).toBe(25);
      expect(await counter(spot.skuId)).toBe(25);
    });

    it('a slot capacity of 12 over both: exactly 12 pass', async () => {
      const db = cluster.database.db;
      const spot = await spotWithVerifier(db, one);
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
      const spot = await spotWithVerifier(db, one);
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

import { expect } from 'vitest';
import type { Db } from '../../src/platform/db/database.js';
import { createChecker, createCheckerRelation } from '../helpers/factories.js';
import { spotRows } from '../checker/checkin-fixtures.js';
import { call, newClientIp } from './cluster.js';

/**
 * A spot (test/checker/checkin-fixtures.ts, card daily limit 1) and a verifier posted at it (every
 * gate), logged in over HTTP on the server process at `base`, as a gate's app logs in.
 */
export async function spotWithVerifier(
  db: Db,
  base: string,
): Promise<{ skuId: number; modelId: number; token: string }> {
  const spot = await spotRows(db);
  const checker = await createChecker(db, { merchant_id: spot.merchantId, shop_id: spot.shopId });
  await createCheckerRelation(db, { checker_id: checker.id, sku_id: spot.skuId, entrance_id: null });
  const login = await call(
    base,
    '/app-api/auth/checkerLogin',
    { mobile: checker.mobile, password: checker.password },
    { ip: newClientIp() },
  );
  expect(login.body.errcode, login.body.errmsg).toBe(0);
  return { skuId: spot.skuId, modelId: spot.modelId, token: login.body.data.accessToken as string };
}

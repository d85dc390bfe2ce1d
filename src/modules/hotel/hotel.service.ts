import { assertInScope } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import { notFound } from '../../platform/errors.js';
import type { AuthedContext } from '../../platform/http/context.js';
import * as repo from './hotel.repository.js';
import type { HotelOrderDetail } from './hotel.schemas.js';

/** Hotel orders (spec B 2.7, 4.7): read by the staff of the order's merchant or shop. */
export function createHotelService(deps: { db: Db }) {
  const { db } = deps;
  return {
    async orderDetail(ctx: AuthedContext, id: number): Promise<HotelOrderDetail> {
      const order = await repo.findOrder(db, id);
      if (!order) throw notFound('hotel order');
      assertInScope(ctx.account, order);
      return { order, ...(await repo.orderParts(db, order)) };
    },
  };
}

export type HotelService = ReturnType<typeof createHotelService>;

import { authed } from '../../platform/http/context.js';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { HotelOrderDetail, HotelOrderDetailRequest } from './hotel.schemas.js';
import type { HotelService } from './hotel.service.js';

/** Spec B 4.7; endpoints.tsv puts it on /manage-api, in the envelope. */
export function hotelRoutes(svc: HotelService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/hotelApi/getHotelOrderDetail',
      channels: ['manage'],
      auth: { kinds: ['admin'] },
      permission: 'hotel:read',
      summary: 'A hotel order with its hotel, room type, nights booked, rate plan and guest name',
      tags: ['hotel'],
      body: HotelOrderDetailRequest,
      response: HotelOrderDetail,
      handler: (ctx, { body }) => svc.orderDetail(authed(ctx), body.id),
    }),
  ];
}

import type { Executor } from '../../src/platform/db/executor.js';
import { createShop, uniq } from '../helpers/factories.js';

/** A hotel of a shop with one room type and rate plan, and an order of `nights` nights from checkIn. */
export async function createHotelOrder(
  db: Executor,
  o: {
    shopId?: number;
    nights?: number;
    roomNum?: number;
    checkIn?: string;
    price?: number;
    guestId?: number | null;
    contactName?: string;
    memberId?: number | null;
  } = {},
) {
  const shopId = o.shopId ?? (await createShop(db));
  const { merchant_id: merchantId } = await db
    .selectFrom('shop')
    .select('merchant_id')
    .where('id', '=', shopId)
    .executeTakeFirstOrThrow();
  const hotel = await db
    .insertInto('hotel_info')
    .values({
      merchant_id: merchantId,
      shop_id: shopId,
      name: `Lake Hotel ${uniq()}`,
      grade: 4,
      type: 1,
      opening_year: 2015,
      room_count: 60,
      phone: '0571-12345678',
      address: '1 Lake Road',
      longitude: '120.155070',
      latitude: '30.274084',
      images: ['https://img.example/1.jpg'],
      tags: ['lake'],
      location_tags: ['West Lake'],
      highlights: ['view'],
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const roomType = await db
    .insertInto('hotel_room_type')
    .values({
      merchant_id: merchantId,
      shop_id: shopId,
      hotel_id: hotel.id,
      name: 'Lake view king',
      base_price: 60000,
      room_type_area: '35',
      window_type: 1,
      bed_info: '1.8 m king',
      guests: 2,
      smoking: 1,
      network_type: 1,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const price = o.price ?? 58800;
  const plan = await db
    .insertInto('hotel_plan')
    .values({
      hotel_id: hotel.id,
      room_type_id: roomType.id,
      name: 'Breakfast for two',
      breakfast: 2,
      base_price: 60000,
      sale_price: price,
      cancel_type: 2,
      cancel_days: 1,
      cancel_hours: 18,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const nights = o.nights ?? 2;
  const roomNum = o.roomNum ?? 1;
  const checkIn = o.checkIn ?? '2026-05-01';
  const day = (n: number) => {
    const d = new Date(`${checkIn}T00:00:00`);
    d.setDate(d.getDate() + n);
    return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  };
  const original = price * roomNum * nights;
  const order = await db
    .insertInto('hotel_order')
    .values({
      order_no: uniq('HT').slice(0, 32),
      channel: 3,
      merchant_id: merchantId,
      shop_id: shopId,
      hotel_id: hotel.id,
      room_type_id: roomType.id,
      plan_id: plan.id,
      purchase_date: new Date('2026-04-20T10:00:00+08:00'),
      check_in_date: checkIn,
      check_out_date: day(nights),
      expected_arrival_time: '18:00:00',
      stay_nights: nights,
      room_num: roomNum,
      original_amount: original,
      discount_amount: 1000,
      coupon_amount: 2000,
      total_amount: original - 3000,
      paid_amount: original - 3000,
      guest_id: o.guestId ?? null,
      guest_num: 2,
      breakfast_num: 2 * nights,
      cancel_type: 2,
      member_id: o.memberId ?? null,
      contact_name: o.contactName ?? 'Zhang San',
      contact_phone: '13800001111',
      review_status: 1,
      payment_status: 1,
      status: 2,
      order_express_time: new Date('2026-04-20T10:30:00+08:00'),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('hotel_order_room')
    .values(
      Array.from({ length: nights }, (_, n) => ({
        order_id: order.id,
        room_type_id: roomType.id,
        plan_id: plan.id,
        room_name: 'Lake view king',
        room_date: day(n),
        room_num: roomNum,
        room_price: price,
        total_price: price * roomNum,
        status: 2,
      })),
    )
    .execute();
  return { orderId: order.id, hotelId: hotel.id, roomTypeId: roomType.id, planId: plan.id, shopId, merchantId };
}

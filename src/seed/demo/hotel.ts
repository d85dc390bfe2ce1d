import type { Insertable } from 'kysely';
import type { HotelOrderRoomTable, HotelOrderTable } from '../../db/tables/hotel.js';
import type { Executor } from '../../platform/db/executor.js';
import { formatDay } from './calendar.js';
import type { Organisation } from './organisation.js';
import { SPOTS } from './organisation.js';
import { Rng } from './prng.js';

/**
 * Demo hotels (spec B 2.7): three resort hotels inside scenic areas, their room types and rate plans,
 * and about scale / 250 orders (60–2,000) over the last year and the next month, each with one
 * order-room row per night. Amounts add up to the cent: a night's totalPrice = roomPrice × roomNum,
 * originalAmount = Σ nights, totalAmount = originalAmount − discountAmount − couponAmount.
 *
 * Written with the generator's transaction (`exec`) after the bulk load, through the ordinary
 * triggers; ids come from the tables' identities. Deterministic for a seed and reference date.
 */

interface HotelDef {
  spot: string;
  name: string;
  grade: number;
  type: number;
  openingYear: number;
  landmark: string;
  tags: string[];
  highlights: string[];
  rooms: Array<{ name: string; price: number; area: string; bed: string; guests: number; window: number }>;
}

const HOTELS: readonly HotelDef[] = [
  {
    spot: '湘湖旅游度假区',
    name: '湘湖逍遥度假酒店',
    grade: 5,
    type: 2,
    openingYear: 2016,
    landmark: '湘湖景区北门旁',
    tags: ['湖景', '亲子', '温泉'],
    highlights: ['推窗见湖', '含景区接驳'],
    rooms: [
      { name: '湖景大床房', price: 880, area: '45', bed: '1.8米大床', guests: 2, window: 1 },
      { name: '园景双床房', price: 760, area: '42', bed: '1.2米双床', guests: 2, window: 1 },
      { name: '家庭套房', price: 1480, area: '78', bed: '1.8米大床+1.2米单床', guests: 4, window: 1 },
    ],
  },
  {
    spot: '千岛湖观光区',
    name: '千岛湖湖畔酒店',
    grade: 4,
    type: 1,
    openingYear: 2012,
    landmark: '中心湖区码头步行5分钟',
    tags: ['码头旁', '湖鲜餐厅'],
    highlights: ['步行登船', '免费停车'],
    rooms: [
      { name: '高级大床房', price: 520, area: '32', bed: '1.8米大床', guests: 2, window: 1 },
      { name: '高级双床房', price: 520, area: '32', bed: '1.2米双床', guests: 2, window: 1 },
      { name: '湖景套房', price: 1080, area: '60', bed: '2米大床', guests: 3, window: 1 },
    ],
  },
  {
    spot: '西溪湿地探秘',
    name: '西溪湿地水岸民宿',
    grade: 3,
    type: 3,
    openingYear: 2019,
    landmark: '福堤入口对面',
    tags: ['民宿', '湿地'],
    highlights: ['管家服务', '早餐现做'],
    rooms: [
      { name: '水岸大床房', price: 460, area: '28', bed: '1.8米大床', guests: 2, window: 1 },
      { name: '庭院双床房', price: 420, area: '30', bed: '1.2米双床', guests: 2, window: 3 },
      { name: '阁楼亲子房', price: 680, area: '40', bed: '1.5米大床+1.2米单床', guests: 3, window: 2 },
    ],
  },
];

const HISTORY_DAYS = 365;
const AHEAD_DAYS = 30;
const DAY_MS = 86_400_000;
const INSERT_CHUNK = 200;

interface Plan {
  id: number;
  hotelId: number;
  roomTypeId: number;
  roomName: string;
  salePrice: number;
  breakfast: number;
  cancelType: number;
  merchantId: number;
  shopId: number;
}

/** Local midnight `days` after `d`. */
const plusDays = (d: Date, days: number) => new Date(d.getFullYear(), d.getMonth(), d.getDate() + days);

async function insertCatalog(exec: Executor, org: Organisation): Promise<Plan[]> {
  const plans: Plan[] = [];
  for (const def of HOTELS) {
    const spotIndex = SPOTS.findIndex((s) => s.name === def.spot);
    const { shopId, merchantId } = org.spotShops[spotIndex];
    const district = SPOTS[spotIndex].district;
    const hotel = await exec
      .insertInto('hotel_info')
      .values({
        merchant_id: merchantId,
        shop_id: shopId,
        name: def.name,
        grade: def.grade,
        type: def.type,
        status: 1,
        opening_year: def.openingYear,
        room_count: def.rooms.length * 20,
        phone: `0571-6${String(7000000 + spotIndex * 131).padStart(7, '0')}`,
        address: `${def.spot}内`,
        landmark: def.landmark,
        province_id: district.slice(0, 2) + '0000',
        city_id: district.slice(0, 4) + '00',
        district_id: district,
        cover_image: `https://demo.example.com/hotel/${spotIndex}/cover.jpg`,
        images: [1, 2, 3].map((n) => `https://demo.example.com/hotel/${spotIndex}/${n}.jpg`),
        tags: def.tags,
        location_tags: [def.spot],
        highlights: def.highlights,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const [sort, room] of def.rooms.entries()) {
      const roomType = await exec
        .insertInto('hotel_room_type')
        .values({
          merchant_id: merchantId,
          shop_id: shopId,
          hotel_id: hotel.id,
          name: room.name,
          base_price: room.price * 100,
          status: 1,
          sort,
          room_type_area: room.area,
          floor_info: '2-6层',
          window_type: room.window,
          bed_info: room.bed,
          guests: room.guests,
          smoking: 1,
          network_type: 1,
          extra_bed_allowed: room.guests >= 3,
          extra_bed_desc: room.guests >= 3 ? '加床 150 元/晚' : null,
          images: [`https://demo.example.com/hotel/${spotIndex}/room-${sort}.jpg`],
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const variants = [
        { name: '标准价（无早）', breakfast: 0, factor: 1, cancelType: 2 },
        { name: '含双早·景区接驳', breakfast: 2, factor: 1.15, cancelType: 1 },
      ];
      for (const [k, v] of variants.entries()) {
        const salePrice = Math.round(room.price * v.factor) * 100;
        const plan = await exec
          .insertInto('hotel_plan')
          .values({
            hotel_id: hotel.id,
            room_type_id: roomType.id,
            name: v.name,
            auto_confirm: k === 1,
            breakfast: v.breakfast,
            base_price: room.price * 100,
            sale_price: salePrice,
            stock_type: 1,
            stock_num: 20,
            cancel_type: v.cancelType,
            cancel_days: v.cancelType === 2 ? 1 : null,
            cancel_hours: v.cancelType === 2 ? 18 : null,
            sort: k,
            status: 1,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        plans.push({
          id: plan.id,
          hotelId: hotel.id,
          roomTypeId: roomType.id,
          roomName: room.name,
          salePrice,
          breakfast: v.breakfast,
          cancelType: v.cancelType,
          merchantId,
          shopId,
        });
      }
    }
  }
  return plans;
}

/** Status, payment and review of an order by where its stay lies relative to today. */
function lifecycle(
  rng: Rng,
  checkIn: Date,
  checkOut: Date,
  today: Date,
): { status: number; payment: number; review: number } {
  const u = rng.next();
  if (checkOut.getTime() <= today.getTime()) {
    if (u < 0.07) return { status: 5, payment: 3, review: 1 };
    if (u < 0.1) return { status: 6, payment: 1, review: 1 };
    return { status: 4, payment: 1, review: 1 };
  }
  if (checkIn.getTime() <= today.getTime()) return { status: 3, payment: 1, review: 1 };
  if (u < 0.1) return { status: 1, payment: 0, review: 0 };
  if (u < 0.18) return { status: 5, payment: 3, review: 1 };
  return { status: 2, payment: 1, review: 1 };
}

export async function seedDemoHotels(
  exec: Executor,
  o: { seed: number; scale: number; now: Date; org: Organisation },
): Promise<number> {
  const plans = await insertCatalog(exec, o.org);
  const members = await exec
    .selectFrom('member')
    .select(['id', 'name', 'mobile'])
    .where('mobile', 'is not', null)
    .orderBy('id')
    .limit(400)
    .execute();
  const count = Math.min(2000, Math.max(60, Math.round(o.scale / 250)));
  const rng = new Rng(o.seed, 0x40_7e1);
  const orders: Array<{
    order: Insertable<HotelOrderTable>;
    nights: Array<Omit<Insertable<HotelOrderRoomTable>, 'order_id'>>;
  }> = [];
  for (let i = 0; i < count; i++) {
    const plan = plans[rng.int(plans.length)];
    const checkIn = plusDays(o.now, rng.range(-HISTORY_DAYS, AHEAD_DAYS));
    const stay = [1, 1, 1, 2, 2, 3][rng.int(6)];
    const checkOut = plusDays(checkIn, stay);
    const roomNum = rng.chance(0.15) ? 2 : 1;
    const nights = Array.from({ length: stay }, (_, n) => {
      const date = plusDays(checkIn, n);
      // Friday and Saturday nights cost a fifth more.
      const roomPrice = date.getDay() === 5 || date.getDay() === 6 ? Math.round(plan.salePrice * 1.2) : plan.salePrice;
      return { date, roomPrice };
    });
    const original = nights.reduce((sum, n) => sum + n.roomPrice * roomNum, 0);
    const discount = rng.chance(0.12) ? Math.round(original * 0.05) : 0;
    const total = original - discount;
    const { status, payment, review } = lifecycle(rng, checkIn, checkOut, o.now);
    const purchase = new Date(checkIn.getTime() - rng.range(1, 30) * DAY_MS + rng.range(8 * 3600, 22 * 3600) * 1000);
    const member = members.length ? members[rng.int(members.length)] : null;
    const arrivalHour = rng.range(14, 20);
    orders.push({
      order: {
        order_no: `HT${formatDay(purchase).replace(/-/g, '')}${String(i + 1).padStart(6, '0')}`,
        channel: rng.chance(0.7) ? 3 : 4,
        merchant_id: plan.merchantId,
        shop_id: plan.shopId,
        hotel_id: plan.hotelId,
        room_type_id: plan.roomTypeId,
        plan_id: plan.id,
        purchase_date: purchase,
        check_in_date: formatDay(checkIn),
        check_out_date: formatDay(checkOut),
        expected_arrival_time: `${arrivalHour}:00:00`,
        actual_checkin_time:
          status === 3 || status === 4
            ? new Date(checkIn.getTime() + (arrivalHour * 3600 + rng.range(0, 7200)) * 1000)
            : null,
        actual_checkout_time:
          status === 4 ? new Date(checkOut.getTime() + rng.range(8 * 3600, 12 * 3600) * 1000) : null,
        stay_nights: stay,
        room_num: roomNum,
        original_amount: original,
        discount_amount: discount,
        total_amount: total,
        paid_amount: payment === 0 ? 0 : total,
        coupon_amount: 0,
        guest_num: roomNum * 2,
        breakfast_num: plan.breakfast * roomNum * stay,
        cancel_type: plan.cancelType,
        cancel_time: status === 5 ? new Date(purchase.getTime() + rng.range(1, 48) * 3600_000) : null,
        member_id: member?.id ?? null,
        contact_name: member?.name ?? '散客',
        contact_phone: member?.mobile ?? null,
        remark: rng.chance(0.2) ? '请安排高楼层' : null,
        review_status: review,
        payment_status: payment,
        status,
        order_express_time: new Date(purchase.getTime() + 30 * 60_000),
        created_at: purchase,
        updated_at: purchase,
      },
      nights: nights.map((n) => ({
        room_type_id: plan.roomTypeId,
        plan_id: plan.id,
        room_name: plan.roomName,
        room_date: formatDay(n.date),
        room_num: roomNum,
        room_price: n.roomPrice,
        total_price: n.roomPrice * roomNum,
        status,
        checked_out_num: status === 4 ? roomNum : 0,
      })),
    });
  }
  for (let start = 0; start < orders.length; start += INSERT_CHUNK) {
    const chunk = orders.slice(start, start + INSERT_CHUNK);
    const inserted = await exec
      .insertInto('hotel_order')
      .values(chunk.map((c) => c.order))
      .returning(['id', 'order_no'])
      .execute();
    const idOf = new Map(inserted.map((r) => [r.order_no, r.id]));
    const rooms = chunk.flatMap((c) => c.nights.map((n) => ({ ...n, order_id: idOf.get(c.order.order_no)! })));
    await exec.insertInto('hotel_order_room').values(rooms).execute();
  }
  return orders.length;
}

import type { Selectable } from 'kysely';
import { codeText } from '../../platform/http/schemas.js';
import type {
  HotelInfoTable,
  HotelOrderRoomTable,
  HotelOrderTable,
  HotelPlanTable,
  HotelRoomTypeTable,
} from '../../db/tables/hotel.js';
import type { Executor } from '../../platform/db/executor.js';
import { formatDateTime } from '../../platform/time.js';
import type { HotelOrderDetail } from './hotel.schemas.js';

type Detail = HotelOrderDetail;

const when = (d: Date) => formatDateTime(d)!;
const num = (v: string | null) => (v === null ? null : Number(v));

function audit(r: {
  is_deleted: boolean;
  created_by: number | null;
  created_at: Date;
  updated_by: number | null;
  updated_at: Date;
}) {
  return {
    isDeleted: r.is_deleted,
    createdBy: r.created_by,
    createdTime: when(r.created_at),
    updatedBy: r.updated_by,
    updatedTime: when(r.updated_at),
  };
}

function toOrder(r: Selectable<HotelOrderTable>): Detail['order'] {
  return {
    id: r.id,
    orderNo: r.order_no,
    channel: codeText(r.channel),
    merchantId: r.merchant_id,
    shopId: r.shop_id,
    hotelId: r.hotel_id,
    roomTypeId: r.room_type_id,
    planId: r.plan_id,
    purchaseDate: when(r.purchase_date),
    checkInDate: r.check_in_date,
    checkOutDate: r.check_out_date,
    expectedArrivalTime: r.expected_arrival_time,
    actualCheckinTime: formatDateTime(r.actual_checkin_time),
    actualCheckoutTime: formatDateTime(r.actual_checkout_time),
    stayNights: r.stay_nights,
    roomNum: r.room_num,
    originalAmount: r.original_amount,
    discountAmount: r.discount_amount,
    totalAmount: r.total_amount,
    paidAmount: r.paid_amount,
    couponId: r.coupon_id,
    couponAmount: r.coupon_amount,
    guestId: r.guest_id,
    guestNum: r.guest_num,
    breakfastNum: r.breakfast_num,
    cancelType: r.cancel_type,
    cancelTime: formatDateTime(r.cancel_time),
    memberId: r.member_id,
    contactName: r.contact_name,
    contactPhone: r.contact_phone,
    remark: r.remark,
    reviewStatus: r.review_status,
    paymentStatus: r.payment_status,
    status: r.status,
    ...audit(r),
    orderExpressTime: formatDateTime(r.order_express_time),
  };
}

function toHotel(r: Selectable<HotelInfoTable>): Detail['hotelInfo'] {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    shopId: r.shop_id,
    name: r.name,
    grade: r.grade,
    type: r.type,
    status: r.status,
    openingYear: r.opening_year,
    roomCount: r.room_count,
    phone: r.phone,
    address: r.address,
    landmark: r.landmark,
    provinceId: r.province_id,
    cityId: r.city_id,
    districtId: r.district_id,
    longitude: num(r.longitude),
    latitude: num(r.latitude),
    coverImage: r.cover_image,
    images: r.images,
    tags: r.tags,
    locationTags: r.location_tags,
    highlights: r.highlights,
    ...audit(r),
  };
}

function toRoomType(r: Selectable<HotelRoomTypeTable>): Detail['roomType'] {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    shopId: r.shop_id,
    hotelId: r.hotel_id,
    name: r.name,
    basePrice: r.base_price,
    coverImage: r.cover_image,
    images: r.images,
    status: r.status,
    sort: r.sort,
    roomTypeArea: r.room_type_area,
    floorInfo: r.floor_info,
    windowType: r.window_type,
    bedInfo: r.bed_info,
    guests: r.guests,
    smoking: r.smoking,
    networkType: r.network_type,
    extraBedAllowed: r.extra_bed_allowed,
    extraBedDesc: r.extra_bed_desc,
    ...audit(r),
  };
}

function toRoom(r: Selectable<HotelOrderRoomTable>): Detail['roomList'][number] {
  return {
    id: r.id,
    orderId: r.order_id,
    roomTypeId: r.room_type_id,
    planId: r.plan_id,
    priceCalendarId: r.price_calendar_id,
    roomName: r.room_name,
    roomDate: r.room_date,
    roomNum: r.room_num,
    roomPrice: r.room_price,
    totalPrice: r.total_price,
    status: r.status,
    checkedOutNum: r.checked_out_num,
    ...audit(r),
  };
}

function toPlan(r: Selectable<HotelPlanTable>): Detail['plan'] {
  return {
    id: r.id,
    hotelId: r.hotel_id,
    roomTypeId: r.room_type_id,
    name: r.name,
    autoConfirm: r.auto_confirm,
    breakfast: r.breakfast,
    basePrice: r.base_price,
    salePrice: r.sale_price,
    stockType: r.stock_type,
    stockNum: r.stock_num,
    cancelType: r.cancel_type,
    cancelDays: r.cancel_days,
    cancelHours: r.cancel_hours,
    sort: r.sort,
    status: r.status,
    ...audit(r),
  };
}

export async function findOrder(db: Executor, id: number): Promise<Detail['order'] | null> {
  const r = await db
    .selectFrom('hotel_order')
    .selectAll()
    .where('id', '=', id)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  return r ? toOrder(r) : null;
}

/**
 * The records an order points at, read as they are now (a hotel, room type or plan taken off sale or
 * deleted since still shows, with its flags); the order's nights in date order.
 */
export async function orderParts(db: Executor, order: Detail['order']): Promise<Omit<Detail, 'order'>> {
  const [hotel, roomType, plan, rooms, guest] = await Promise.all([
    db.selectFrom('hotel_info').selectAll().where('id', '=', order.hotelId).executeTakeFirstOrThrow(),
    db.selectFrom('hotel_room_type').selectAll().where('id', '=', order.roomTypeId).executeTakeFirstOrThrow(),
    db.selectFrom('hotel_plan').selectAll().where('id', '=', order.planId).executeTakeFirstOrThrow(),
    db
      .selectFrom('hotel_order_room')
      .selectAll()
      .where('order_id', '=', order.id)
      .where('is_deleted', '=', false)
      .orderBy('room_date')
      .orderBy('id')
      .execute(),
    order.guestId === null
      ? Promise.resolve(undefined)
      : db.selectFrom('member_contacts').select('name').where('id', '=', order.guestId).executeTakeFirst(),
  ]);
  return {
    hotelInfo: toHotel(hotel),
    roomType: toRoomType(roomType),
    roomList: rooms.map(toRoom),
    plan: toPlan(plan),
    guestName: guest?.name ?? order.contactName,
  };
}

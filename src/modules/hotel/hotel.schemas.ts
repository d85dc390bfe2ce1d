import { Type, type Static } from 'typebox';
import { Id, Nullable } from '../../platform/http/schemas.js';

const Int = Type.Integer();
const NInt = Nullable(Type.Integer());
const Text = Type.String();
const NText = Nullable(Type.String());
const Cents = Type.Integer({ description: 'cents' });
const DateTime = Type.String({ description: 'YYYY-MM-DD HH:mm:ss' });
const NDateTime = Nullable(DateTime);
const Day = Type.String({ description: 'YYYY-MM-DD' });
const Texts = Type.Array(Type.String());

const audit = {
  isDeleted: Type.Boolean(),
  createdBy: NInt,
  createdTime: DateTime,
  updatedBy: NInt,
  updatedTime: DateTime,
};

export const HotelOrder = Type.Object(
  {
    id: Int,
    orderNo: Text,
    channel: Nullable(Type.String({ description: 'ChannelType code "1"-"8" the order came through' })),
    merchantId: Int,
    shopId: Int,
    hotelId: Int,
    roomTypeId: Int,
    planId: Int,
    purchaseDate: DateTime,
    checkInDate: Day,
    checkOutDate: Day,
    expectedArrivalTime: Nullable(Type.String({ description: 'HH:mm:ss' })),
    actualCheckinTime: NDateTime,
    actualCheckoutTime: NDateTime,
    stayNights: Int,
    roomNum: Int,
    originalAmount: Cents,
    discountAmount: Cents,
    totalAmount: Type.Integer({ description: 'cents: originalAmount − discountAmount − couponAmount' }),
    paidAmount: Cents,
    couponId: NInt,
    couponAmount: Cents,
    guestId: Nullable(Type.Integer({ description: 'the member contact who stays' })),
    guestNum: NInt,
    breakfastNum: Int,
    cancelType: Nullable(
      Type.Integer({ description: "1 free cancellation, 2 cancellable until the plan's deadline, 3 not cancellable" }),
    ),
    cancelTime: NDateTime,
    memberId: NInt,
    contactName: NText,
    contactPhone: NText,
    remark: NText,
    reviewStatus: Type.Integer({ description: '0 pending, 1 approved, 2 rejected' }),
    paymentStatus: Type.Integer({ description: '0 unpaid, 1 paid, 2 refunding, 3 refunded' }),
    status: Type.Integer({
      description: '1 awaiting confirmation, 2 confirmed, 3 checked in, 4 checked out, 5 cancelled, 6 no-show',
    }),
    ...audit,
    orderExpressTime: Nullable(Type.String({ description: 'YYYY-MM-DD HH:mm:ss: an unpaid order lapses then' })),
  },
  { title: 'HotelOrder' },
);

export const HotelInfo = Type.Object(
  {
    id: Int,
    merchantId: Int,
    shopId: Int,
    name: Text,
    grade: Nullable(Type.Integer({ description: 'stars, 1–5' })),
    type: Type.Integer({ description: '1 hotel, 2 resort, 3 homestay, 4 inn, 5 campsite' }),
    status: Type.Integer({ description: '1 open, 2 closed' }),
    openingYear: NInt,
    roomCount: NInt,
    phone: NText,
    address: NText,
    landmark: NText,
    provinceId: NText,
    cityId: NText,
    districtId: NText,
    longitude: Nullable(Type.Number()),
    latitude: Nullable(Type.Number()),
    coverImage: NText,
    images: Texts,
    tags: Texts,
    locationTags: Texts,
    highlights: Texts,
    ...audit,
  },
  { title: 'HotelInfo' },
);

export const RoomType = Type.Object(
  {
    id: Int,
    merchantId: Int,
    shopId: Int,
    hotelId: Int,
    name: Text,
    basePrice: Cents,
    coverImage: NText,
    images: Texts,
    status: Type.Integer({ description: '1 on sale, 2 off sale' }),
    sort: Int,
    roomTypeArea: Nullable(Type.String({ description: 'square metres, e.g. "35" or "30-35"' })),
    floorInfo: NText,
    windowType: Nullable(Type.Integer({ description: '1 window, 2 no window, 3 some rooms with a window' })),
    bedInfo: NText,
    guests: NInt,
    smoking: Nullable(Type.Integer({ description: '1 non-smoking, 2 smoking, 3 some rooms non-smoking' })),
    networkType: Nullable(Type.Integer({ description: '0 none, 1 Wi-Fi, 2 wired, 3 both' })),
    extraBedAllowed: Type.Boolean(),
    extraBedDesc: NText,
    ...audit,
  },
  { title: 'RoomType' },
);

export const OrderRoom = Type.Object(
  {
    id: Int,
    orderId: Int,
    roomTypeId: Int,
    planId: Int,
    priceCalendarId: NInt,
    roomName: Text,
    roomDate: Day,
    roomNum: Int,
    roomPrice: Cents,
    totalPrice: Type.Integer({ description: 'cents: roomPrice × roomNum' }),
    status: Int,
    checkedOutNum: Int,
    ...audit,
  },
  { title: 'OrderRoom' },
);

export const RatePlan = Type.Object(
  {
    id: Int,
    hotelId: Int,
    roomTypeId: Int,
    name: Text,
    autoConfirm: Type.Boolean(),
    breakfast: Type.Integer({ description: 'breakfasts included per room and night' }),
    basePrice: Cents,
    salePrice: Cents,
    stockType: Type.Integer({ description: '1 limited stock, 2 unlimited' }),
    stockNum: NInt,
    cancelType: Type.Integer({
      description: '1 free cancellation, 2 until cancelDays/cancelHours before arrival, 3 not cancellable',
    }),
    cancelDays: NInt,
    cancelHours: NInt,
    sort: Int,
    status: Type.Integer({ description: '1 on sale, 2 off sale' }),
    ...audit,
  },
  { title: 'RatePlan' },
);

/** Spec B 2.7: the order with its hotel, room type, nights (roomList), rate plan and guest name. */
export const HotelOrderDetail = Type.Object(
  {
    order: HotelOrder,
    hotelInfo: HotelInfo,
    roomType: RoomType,
    roomList: Type.Array(OrderRoom),
    plan: RatePlan,
    guestName: NText,
  },
  { title: 'HotelOrderDetail' },
);
export type HotelOrderDetail = Static<typeof HotelOrderDetail>;

export const HotelOrderDetailRequest = Type.Object({ id: Id }, { title: 'HotelOrderDetailRequest' });

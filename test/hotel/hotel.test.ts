import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, createShop } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createHotelOrder } from './hotel-fixtures.js';

/** Hotel order detail (spec B 2.7, 4.7). */
const PATH = '/manage-api/hotelApi/getHotelOrderDetail';

let t: TestApp;
let platform: StaffSession;

beforeAll(async () => {
  t = await createTestApp();
  platform = await staffSession(t, { kind: 'platform', permissions: ['hotel:read'] });
});
afterAll(() => t?.close());

describe('rejection matrix', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: PATH,
    permission: 'hotel:read',
    validBody: () => ({ id: 1 }),
    badInputs: [
      { body: () => ({}), field: 'id', rule: /id is required/ },
      { body: () => ({ id: 'HT1' }), field: 'id' },
    ],
  });
});

describe('getHotelOrderDetail', () => {
  it('answers the order with its hotel, room type, nights, plan and guest name, exactly as spec B 2.7 lists them', async () => {
    const o = await createHotelOrder(t.db, { nights: 3, roomNum: 2, checkIn: '2026-05-01', price: 50000 });
    const res = await t.post(PATH, { id: o.orderId }, platform.token);
    expect(res.body.errcode, res.body.errmsg).toBe(0);
    const d = res.body.data;
    expect(Object.keys(d)).toEqual(['order', 'hotelInfo', 'roomType', 'roomList', 'plan', 'guestName']);
    expect(Object.keys(d.order)).toEqual([
      'id',
      'orderNo',
      'channel',
      'merchantId',
      'shopId',
      'hotelId',
      'roomTypeId',
      'planId',
      'purchaseDate',
      'checkInDate',
      'checkOutDate',
      'expectedArrivalTime',
      'actualCheckinTime',
      'actualCheckoutTime',
      'stayNights',
      'roomNum',
      'originalAmount',
      'discountAmount',
      'totalAmount',
      'paidAmount',
      'couponId',
      'couponAmount',
      'guestId',
      'guestNum',
      'breakfastNum',
      'cancelType',
      'cancelTime',
      'memberId',
      'contactName',
      'contactPhone',
      'remark',
      'reviewStatus',
      'paymentStatus',
      'status',
      'isDeleted',
      'createdBy',
      'createdTime',
      'updatedBy',
      'updatedTime',
      'orderExpressTime',
    ]);
    expect(Object.keys(d.hotelInfo)).toEqual([
      'id',
      'merchantId',
      'shopId',
      'name',
      'grade',
      'type',
      'status',
      'openingYear',
      'roomCount',
      'phone',
      'address',
      'landmark',
      'provinceId',
      'cityId',
      'districtId',
      'longitude',
      'latitude',
      'coverImage',
      'images',
      'tags',
      'locationTags',
      'highlights',
      'isDeleted',
      'createdBy',
      'createdTime',
      'updatedBy',
      'updatedTime',
    ]);
    expect(Object.keys(d.roomType)).toEqual([
      'id',
      'merchantId',
      'shopId',
      'hotelId',
      'name',
      'basePrice',
      'coverImage',
      'images',
      'status',
      'sort',
      'roomTypeArea',
      'floorInfo',
      'windowType',
      'bedInfo',
      'guests',
      'smoking',
      'networkType',
      'extraBedAllowed',
      'extraBedDesc',
      'isDeleted',
      'createdBy',
      'createdTime',
      'updatedBy',
      'updatedTime',
    ]);
    expect(Object.keys(d.roomList[0])).toEqual([
      'id',
      'orderId',
      'roomTypeId',
      'planId',
      'priceCalendarId',
      'roomName',
      'roomDate',
      'roomNum',
      'roomPrice',
      'totalPrice',
      'status',
      'checkedOutNum',
      'isDeleted',
      'createdBy',
      'createdTime',
      'updatedBy',
      'updatedTime',
    ]);
    expect(Object.keys(d.plan)).toEqual([
      'id',
      'hotelId',
      'roomTypeId',
      'name',
      'autoConfirm',
      'breakfast',
      'basePrice',
      'salePrice',
      'stockType',
      'stockNum',
      'cancelType',
      'cancelDays',
      'cancelHours',
      'sort',
      'status',
      'isDeleted',
      'createdBy',
      'createdTime',
      'updatedBy',
      'updatedTime',
    ]);
    expect(d.order.channel).toBe('3'); // a ChannelType travels as its string code (spec A 2.2)
    expect(d.order).toMatchObject({
      id: o.orderId,
      merchantId: o.merchantId,
      shopId: o.shopId,
      hotelId: o.hotelId,
      roomTypeId: o.roomTypeId,
      planId: o.planId,
      purchaseDate: '2026-04-20 10:00:00',
      checkInDate: '2026-05-01',
      checkOutDate: '2026-05-04',
      expectedArrivalTime: '18:00:00',
      stayNights: 3,
      roomNum: 2,
      originalAmount: 300000,
      discountAmount: 1000,
      couponAmount: 2000,
      totalAmount: 297000,
      paidAmount: 297000,
      isDeleted: false,
      orderExpressTime: '2026-04-20 10:30:00',
      actualCheckinTime: null,
    });
    expect(d.hotelInfo).toMatchObject({
      id: o.hotelId,
      longitude: 120.15507,
      latitude: 30.274084,
      images: ['https://img.example/1.jpg'],
      tags: ['lake'],
    });
    expect(d.roomList.map((r: { roomDate: string; totalPrice: number }) => [r.roomDate, r.totalPrice])).toEqual([
      ['2026-05-01', 100000],
      ['2026-05-02', 100000],
      ['2026-05-03', 100000],
    ]);
    // The nights add up to the order's original amount, to the cent.
    expect(d.roomList.reduce((s: number, r: { totalPrice: number }) => s + r.totalPrice, 0)).toBe(
      d.order.originalAmount,
    );
    expect(d.plan).toMatchObject({
      id: o.planId,
      breakfast: 2,
      salePrice: 50000,
      cancelType: 2,
      cancelDays: 1,
      cancelHours: 18,
    });
    expect(d.guestName).toBe('Zhang San');
  });

  it('names the guest from the member contact who stays, when the order has one', async () => {
    const member = await createMember(t.db);
    const contact = await t.db
      .insertInto('member_contacts')
      .values({ member_id: member, name: 'Li Si', identity_no: '110101199003071234', phone: '13900002222', id_type: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const o = await createHotelOrder(t.db, { guestId: contact.id, memberId: member });
    const d = (await t.post(PATH, { id: o.orderId }, platform.token)).body.data;
    expect(d.order).toMatchObject({ guestId: contact.id, memberId: member });
    expect(d.guestName).toBe('Li Si');
  });

  it('answers 404 for an unknown or deleted order', async () => {
    expect((await t.post(PATH, { id: 999_999_999 }, platform.token)).body).toEqual({
      errcode: 404,
      errmsg: 'hotel order not found',
    });
    const o = await createHotelOrder(t.db);
    await t.db.updateTable('hotel_order').set({ is_deleted: true }).where('id', '=', o.orderId).execute();
    expect((await t.post(PATH, { id: o.orderId }, platform.token)).body.errcode).toBe(404);
  });

  it('shows an order to its merchant and shop only', async () => {
    const o = await createHotelOrder(t.db);
    const own = await staffSession(t, { kind: 'merchant', merchantId: o.merchantId, permissions: ['hotel:read'] });
    const ownShop = await staffSession(t, { kind: 'shop', shopId: o.shopId, permissions: ['hotel:read'] });
    const sibling = await staffSession(t, {
      kind: 'shop',
      shopId: await createShop(t.db, { merchant_id: o.merchantId }),
      permissions: ['hotel:read'],
    });
    const stranger = await staffSession(t, { kind: 'merchant', permissions: ['hotel:read'] });
    expect((await t.post(PATH, { id: o.orderId }, own.token)).body.errcode).toBe(0);
    expect((await t.post(PATH, { id: o.orderId }, ownShop.token)).body.errcode).toBe(0);
    expect((await t.post(PATH, { id: o.orderId }, sibling.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another shop',
    });
    expect((await t.post(PATH, { id: o.orderId }, stranger.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another merchant',
    });
  });
});

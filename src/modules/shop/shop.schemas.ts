import { Type, type Static } from 'typebox';
import { Id, IdList, Keywords, Nullable, Opt, orEmpty, PageFields, PhoneText } from '../../platform/http/schemas.js';

export const ShopStatus = Type.Integer({
  minimum: 1,
  maximum: 4,
  description: '1 operating, 2 under review, 3 suspended, 4 closed',
});
const ChannelType = Type.Integer({ minimum: 1, maximum: 8, description: 'ChannelType 1–8' });
const RegionCode = Type.String({
  maxLength: 16,
  pattern: '^[0-9]{1,16}$',
  description: 'a region id (digits)',
  examples: ['330100'],
});
const Coordinate = Type.String({
  maxLength: 32,
  pattern: '^-?[0-9]{1,3}(\\.[0-9]{1,10})?$',
  description: 'decimal degrees, e.g. 120.15507',
  examples: ['120.15507'],
});
const Url = (max: number) => Type.String({ maxLength: max });
const LongText = Type.String({ maxLength: 20_000 });

/** Spec B 2.6 relationList: the shop's id in a third-party system of a channel. */
export const ShopRelationInput = Type.Object(
  {
    thirdName: Opt(Type.String({ maxLength: 128 })),
    thirdId: Opt(Type.String({ maxLength: 64 })),
    channelType: Opt(ChannelType),
    remark: Opt(Type.String({ maxLength: 255 })),
  },
  { title: 'ShopRelationInput' },
);

/** The ShopAddRequest text fields besides name; absent or null keeps the stored value on update, "" clears it. */
const texts = {
  logo: Opt(Url(512)),
  provinceId: Opt(orEmpty(RegionCode)),
  cityId: Opt(orEmpty(RegionCode)),
  districtId: Opt(orEmpty(RegionCode)),
  address: Opt(Type.String({ maxLength: 255 })),
  mobile: Opt(orEmpty(Type.String({ ...PhoneText, description: 'service phone' }))),
  linkman: Opt(Type.String({ maxLength: 64 })),
  linkphone: Opt(orEmpty(PhoneText)),
  manager: Opt(Type.String({ maxLength: 64 })),
  level: Opt(Type.String({ maxLength: 32 })),
  lng: Opt(orEmpty(Coordinate)),
  lat: Opt(orEmpty(Coordinate)),
  introduction: Opt(LongText),
  businessTime: Opt(Type.String({ maxLength: 255 })),
  tags: Opt(Type.String({ maxLength: 255 })),
  mainPic: Opt(Url(1024)),
  propagatePic: Opt(Url(1024)),
  video: Opt(Url(512)),
  poster: Opt(Url(512)),
  propagateContent: Opt(LongText),
  description: Opt(LongText),
  ticketInfo: Opt(LongText),
  trafficInfo: Opt(LongText),
  tips: Opt(LongText),
  thirdId: Opt(Type.String({ maxLength: 64 })),
  thirdName: Opt(Type.String({ maxLength: 128 })),
};
export type ShopTextField = keyof typeof texts;
export const SHOP_TEXT_FIELDS = Object.keys(texts) as ShopTextField[];

const writable = {
  name: Type.String({ minLength: 1, maxLength: 128 }),
  typeId: Opt(Id),
  subTypeId: Opt(Id),
  status: Opt(ShopStatus),
  ...texts,
  relationList: Opt(Type.Array(ShopRelationInput, { maxItems: 50 })),
};

export const ShopAddRequest = Type.Object({ merchantId: Id, ...writable }, { title: 'ShopAddRequest' });
export type ShopAdd = Static<typeof ShopAddRequest>;

/** The merchant of a shop does not change; relationList, when given, replaces the shop's relations. */
export const ShopUpdateRequest = Type.Object(
  { id: Id, merchantId: Opt(Id), ...writable },
  { title: 'ShopUpdateRequest' },
);
export type ShopUpdate = Static<typeof ShopUpdateRequest>;

/**
 * What addShop answers (the spec's void plus this data): the shop, its top-level department and the
 * default shop user, whose generated password is shown here once and stored only as a hash.
 */
export const ShopAddResponse = Type.Object(
  {
    id: Type.Integer({ description: 'the shop' }),
    name: Type.String(),
    merchantId: Type.Integer(),
    deptId: Type.Integer({ description: "the shop's top-level department" }),
    userId: Type.Integer({ description: 'the default shop user' }),
    username: Type.String(),
    password: Type.String({ description: 'generated; shown only in this answer' }),
  },
  { title: 'ShopAddResponse' },
);
export type ShopAdded = Static<typeof ShopAddResponse>;

export const ShopRelation = Type.Object(
  {
    id: Type.Integer(),
    thirdName: Nullable(Type.String()),
    thirdId: Nullable(Type.String()),
    channelType: Nullable(Type.String({ description: 'ChannelType code "1"-"8"' })),
    remark: Nullable(Type.String()),
  },
  { title: 'ShopRelation' },
);

const nullableText = Nullable(Type.String());
export const ShopResponse = Type.Object(
  {
    id: Type.Integer(),
    merchantId: Type.Integer(),
    merchantName: nullableText,
    name: Type.String(),
    typeId: Nullable(Type.Integer()),
    subTypeId: Nullable(Type.Integer()),
    status: Type.Integer(),
    ...(Object.fromEntries(SHOP_TEXT_FIELDS.map((f) => [f, nullableText])) as Record<
      ShopTextField,
      typeof nullableText
    >),
    relationList: Type.Array(ShopRelation),
  },
  { title: 'ShopResponse' },
);
export type Shop = Static<typeof ShopResponse>;

const filters = {
  merchantId: Opt(Id),
  name: Opt(Type.String({ maxLength: 128, description: 'found within the name' })),
  status: Opt(ShopStatus),
  typeId: Opt(Id),
  provinceId: Opt(RegionCode),
  cityId: Opt(RegionCode),
  districtId: Opt(RegionCode),
  idList: Opt(IdList),
  keywords: Opt(Keywords),
};

export const ShopListRequest = Type.Object(filters, { title: 'ShopListRequest' });
export type ShopFilter = Static<typeof ShopListRequest>;

export const ShopPageRequest = Type.Object({ ...PageFields, ...filters }, { title: 'ShopPageRequest' });
export type ShopPageQuery = Static<typeof ShopPageRequest>;

import { Type, type Static } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { SkuEntrance } from '../catalog/index.js';

/** Verifier shapes of spec A 2.3. */

const Text = Nullable(Type.String());
const Int = Nullable(Type.Integer());
const Bool = Nullable(Type.Boolean());
const DateTime = Nullable(Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }));
const TimeOfDay = Nullable(Type.String({ description: 'HH:mm:ss' }));

export const CheckerLoginRequest = Type.Object(
  {
    mobile: Type.String({ minLength: 1, maxLength: 20 }),
    password: Type.String({ minLength: 1, maxLength: 128 }),
  },
  { title: 'CheckerLoginRequest' },
);
export type CheckerLoginRequest = Static<typeof CheckerLoginRequest>;

// Spec A 2.3's SkuEntrance is the catalog's gate record: one schema, one name in the OpenAPI document.
export { SkuEntrance };
export type SkuEntrance = Static<typeof SkuEntrance>;

export const SkuEntranceDto = Type.Object(
  {
    id: Type.Integer({ description: 'the SKU id (the scenic spot a verifier checks at)' }),
    skuName: Type.String(),
    // Spelled as the existing clients read it.
    entrenceList: Type.Array(SkuEntrance, { description: 'the entrances this verifier may check at' }),
  },
  { title: 'SkuEntranceDto' },
);
export type SkuEntranceDto = Static<typeof SkuEntranceDto>;

export const TicketsSku = Type.Object(
  {
    id: Type.Integer(),
    merchantId: Int,
    shopId: Int,
    ticketsId: Int,
    skuName: Type.String(),
    typeId: Text,
    typeInfo: Text,
    stockNumType: Bool,
    stockDateType: Bool,
    bookType: Int,
    bookTimeLimit: TimeOfDay,
    idLimitFlag: Bool,
    idLimitDays: Int,
    idLimitNum: Int,
    speedInfo: Text,
    basePrice: Int,
    contentWith: Text,
    contentWithout: Text,
    enterDemand: Text,
    enterType: Text,
    enterChangeFlag: Bool,
    changePostion: Text,
    changeStart: TimeOfDay,
    changeEnd: TimeOfDay,
    enterPostion: Text,
    enterStart: TimeOfDay,
    enterEnd: TimeOfDay,
    refundType: Int,
    refundDays: Int,
    refundTime: TimeOfDay,
    refundPolicy: Text,
    remark: Text,
    receiptPolicy: Text,
    isDeleted: Type.Boolean(),
    status: Type.String({
      description:
        'TicketsStatus code: "1" on shelf, "2" editing, "3" off shelf (the spec\'s enums travel as string codes)',
    }),
    createdBy: Text,
    createdTime: DateTime,
    updatedBy: Text,
    updatedTime: DateTime,
  },
  { title: 'TicketsSku' },
);
export type TicketsSku = Static<typeof TicketsSku>;

export const CheckerConfig = Type.Object(
  {
    id: Type.Integer(),
    checkerId: Int,
    configType: Int,
    item: Text,
    value: Text,
    remark: Text,
    isDeleted: Type.Boolean(),
    createdTime: DateTime,
  },
  { title: 'CheckerConfig' },
);
export type CheckerConfig = Static<typeof CheckerConfig>;

export const CheckerLoginResponse = Type.Object(
  {
    userId: Type.Integer(),
    checkerName: Type.String(),
    accessToken: Type.String(),
    refreshToken: Type.String(),
    expiresTime: DateTime,
    shopName: Text,
    merchantName: Text,
    sskFlag: Type.Boolean({ description: 'self-service kiosk' }),
    skuInfo: Type.Array(SkuEntranceDto, { description: 'every SKU the verifier may check at, with its entrances' }),
    cqySkuList: Type.Array(SkuEntranceDto, { description: 'the skuInfo entries an enabled tourism-card model admits' }),
    ticketsSkuList: Type.Array(TicketsSku, { description: "on-shelf ticket SKUs of the verifier's SKUs" }),
    configList: Type.Array(CheckerConfig),
  },
  { title: 'CheckerLoginResponse' },
);
export type CheckerLoginResponse = Static<typeof CheckerLoginResponse>;

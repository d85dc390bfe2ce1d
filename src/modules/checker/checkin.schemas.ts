import { Type, type Static } from 'typebox';
import {
  DateRange,
  DateTimeText,
  Id,
  Keywords,
  Nullable,
  Opt,
  PageFields,
  CodeText,
} from '../../platform/http/schemas.js';

/** Check-in at the gate (docs/domain.md §4) and the consume records of spec B 2.2. */

const Text = Nullable(Type.String());
const DateTime = Nullable(Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }));

/** Java clients send "" for the identifiers they do not use: "" counts as absent. */
const CardNumber = Type.String({
  maxLength: 32,
  pattern: '^$|^[0-9A-Za-z_-]+$',
  description: 'the card number, as printed or read from its QR code',
});
const IdNo = Type.String({
  maxLength: 32,
  pattern: '^$|^[0-9A-Za-z()-]+$',
  description: "the holder's ID document number",
});

export const CheckInRequest = Type.Object(
  {
    skuId: Id,
    entranceId: Opt(Id),
    cardNumber: Opt(CardNumber),
    idNo: Opt(IdNo),
    idType: Opt(
      Type.Integer({
        minimum: 1,
        maximum: 9,
        description: 'IdType of idNo (1 ID card … 9 birth certificate); any type when absent',
      }),
    ),
    facePhoto: Opt(
      Type.String({ maxLength: 1_048_576, description: 'a photo of the visitor: an http(s) URL or base64 JPEG/PNG' }),
    ),
    consumeNum: Opt(
      Type.Integer({ minimum: 1, maximum: 100, default: 1, description: 'entries this scan takes (default 1)' }),
    ),
    checkType: Opt(
      Type.Integer({
        minimum: 1,
        maximum: 3,
        description: '1 card or QR, 2 ID document, 3 face; must agree with the identifier given',
      }),
    ),
    nonce: Opt(
      Type.String({
        maxLength: 64,
        pattern: '^$|^[\\x21-\\x7E]+$',
        description:
          "the client's id of this scan: a re-sent scan with the same nonce answers the first answer and makes no second record",
      }),
    ),
    // When an offline scan was made (at most 72 hours ago): the scan is judged at that time. Absent: now.
    checkTime: Opt(DateTimeText),
  },
  { title: 'CheckInRequest' },
);
export type CheckInRequest = Static<typeof CheckInRequest>;

const record = {
  id: Type.Integer(),
  cardNum: Type.String({ description: 'card number' }),
  cardName: Type.String({ description: 'card model name' }),
  mcId: Type.String({ description: 'scenic spot id (the SKU)' }),
  mcName: Type.String({ description: 'scenic spot name (the SKU name)' }),
  cmId: Type.String({ description: "attraction id (the SKU's resource)" }),
  cmName: Type.String({ description: 'attraction name' }),
  entranceName: Text,
  consumeNum: Type.Integer({ description: 'entries taken' }),
  checkerId: Nullable(Type.Integer()),
  checkerName: Text,
  touristName: Text,
  touristMobile: Text,
  touristCardNo: Text,
  touristFacePhoto: Text,
  status: Type.Integer(),
  isDeleted: Type.Boolean(),
  checkTime: DateTime,
  createdBy: Nullable(Type.Integer()),
  createdTime: DateTime,
  updatedBy: Nullable(Type.Integer()),
  updatedTime: DateTime,
  checkType: Type.Integer({ description: '1 card or QR, 2 ID document, 3 face' }),
};

export const CheckerConsumeRecordResponse = Type.Object(record, { title: 'CheckerConsumeRecordResponse' });
export type CheckerConsumeRecord = Static<typeof CheckerConsumeRecordResponse>;

export const CheckInResponse = Type.Object(
  {
    ...record,
    checksLeftToday: Type.Integer({ description: "entries this card has left at this attraction on the check's day" }),
  },
  { title: 'CheckInResponse' },
);
export type CheckInResponse = Static<typeof CheckInResponse>;

export const CheckerCardCheckStatRequest = Type.Object(
  {
    skuId: Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'scenic spot id (a SKU the verifier checks at)',
    }),
  },
  { title: 'CheckerCardCheckStatRequest' },
);
export type CheckerCardCheckStatRequest = Static<typeof CheckerCardCheckStatRequest>;

export const CheckerCardCheckStatBean = Type.Object(
  {
    dayCheckPersonNum: Type.Integer({ description: 'people (distinct cards) checked in at this spot today' }),
    dayCardCheckCnt: Type.Integer({ description: 'check records at this spot today' }),
    checkerCardCheckCnt: Type.Integer({ description: 'of those, the ones made by the calling verifier' }),
  },
  { title: 'CheckerCardCheckStatBean' },
);
export type CheckerCardCheckStat = Static<typeof CheckerCardCheckStatBean>;

export const CheckFailPageRequest = Type.Object(
  {
    ...PageFields,
    checkerId: Opt(Id),
    skuId: Opt(Id),
    errcode: Opt(Type.Integer({ minimum: 1, maximum: 2_000_000_000 })),
    checkTimeRange: Opt(DateRange),
    keywords: Opt(Keywords),
  },
  { title: 'CheckFailPageRequest' },
);
export type CheckFailPageRequest = Static<typeof CheckFailPageRequest>;

export const CheckFailResponse = Type.Object(
  {
    id: Type.Integer(),
    checkerId: Type.Integer(),
    checkerName: Text,
    skuId: Nullable(Type.Integer()),
    skuName: Text,
    entranceId: Nullable(Type.Integer()),
    entranceName: Text,
    cardId: Nullable(Type.Integer()),
    cardNumber: Text,
    idType: CodeText('IdType code "1"-"9"'),
    idNo: Text,
    facePhoto: Text,
    checkType: Nullable(Type.Integer()),
    consumeNum: Nullable(Type.Integer()),
    checkTime: DateTime,
    errcode: Type.Integer({ description: 'the refusal code the verifier was given' }),
    reason: Type.String({ description: 'the message the verifier was given' }),
    nonce: Text,
    createdTime: DateTime,
  },
  { title: 'CheckFailResponse' },
);
export type CheckFail = Static<typeof CheckFailResponse>;

import { Type, type Static } from 'typebox';
import {
  DateRange,
  DateTimeText,
  Id,
  MobilePhone,
  Nullable,
  Opt,
  PageFields,
  CodeText,
} from '../../platform/http/schemas.js';

/** Cards: generated in batches, activated (sold), bound to a holder, unbound, disabled, expired. */

export const CardStatus = { UNBOUND: 1, BOUND: 2, DISABLED: 3, EXPIRED: 4 } as const;

const Medium = Type.Integer({ minimum: 1, maximum: 2, description: '1 chip card, 2 electronic card' });
const Channel = Type.Integer({
  minimum: 1,
  maximum: 8,
  description: 'ChannelType 1–8 (1 card management system … 6 bank, 7 labour union, 8 appointment code)',
});
const IdType = Type.Integer({ minimum: 1, maximum: 9, description: 'IdType 1–9 (1 ID card, 2 passport …)' });
const CardNumber = Type.String({
  minLength: 4,
  maxLength: 32,
  pattern: '^[0-9A-Za-z]+$',
  description: 'the card number',
});

export const Holder = Type.Object(
  {
    name: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    idType: CodeText('IdType code "1"-"9"'),
    idNo: Nullable(Type.String()),
    facePhoto: Nullable(Type.String()),
    memberId: Nullable(
      Type.Integer({ description: "the member whose mobile is the holder's phone, when there is one" }),
    ),
    boundTime: Nullable(Type.String()),
  },
  { title: 'Holder' },
);

export const CardResponse = Type.Object(
  {
    id: Type.Integer(),
    cardNumber: Type.String(),
    cardModelId: Type.Integer(),
    cardModelName: Type.String(),
    batchId: Nullable(Type.Integer()),
    batchNo: Nullable(Type.String()),
    status: Type.Integer({
      description: '1 unbound, 2 bound, 3 disabled, 4 expired (a card whose expiry has passed reads 4 at once)',
    }),
    activated: Type.Boolean({ description: 'sold and activated (activeTime set)' }),
    medium: Type.Integer({ description: '1 chip, 2 electronic' }),
    channel: CodeText('ChannelType code "1"-"8" it was sold through'),
    merchantId: Nullable(Type.Integer({ description: 'the selling (or stock-holding) merchant' })),
    merchantName: Nullable(Type.String()),
    shopId: Nullable(Type.Integer()),
    shopName: Nullable(Type.String()),
    activeBy: Nullable(Type.Integer({ description: 'the sales account that activated it' })),
    activeByName: Nullable(Type.String()),
    isDonation: Type.Boolean(),
    activeTime: Nullable(Type.String()),
    expireTime: Nullable(Type.String()),
    orderNo: Nullable(Type.String()),
    statusReason: Nullable(Type.String()),
    holder: Nullable(Holder),
    createdTime: Nullable(Type.String()),
  },
  { title: 'CardResponse' },
);
export type Card = Static<typeof CardResponse>;

/** Names one card: by id or by number. */
const cardRef = {
  id: Opt(Id),
  cardNumber: Opt(CardNumber),
};
export const CardRefRequest = Type.Object(cardRef, { title: 'CardRefRequest' });
export type CardRef = Static<typeof CardRefRequest>;

export const CardActivateRequest = Type.Object(
  {
    ...cardRef,
    channel: Channel,
    activeTime: Opt(DateTimeText),
    expireTime: Opt(
      Type.String({ ...DateTimeText, description: "default: activeTime plus the model's validity months" }),
    ),
    merchantId: Opt(Id),
    shopId: Opt(Id),
    activeBy: Opt(Id),
    isDonation: Opt(Type.Boolean()),
    orderNo: Opt(Type.String({ maxLength: 64 })),
  },
  { title: 'CardActivateRequest' },
);
export type CardActivate = Static<typeof CardActivateRequest>;

export const CardBindRequest = Type.Object(
  {
    ...cardRef,
    name: Type.String({ minLength: 1, maxLength: 64 }),
    phone: MobilePhone,
    idType: IdType,
    idNo: Type.String({ minLength: 1, maxLength: 32 }),
    facePhoto: Opt(
      Type.String({
        maxLength: 1024,
        description: 'photo URL; the face is enrolled (person id = ID number) so the holder can check in by face',
      }),
    ),
  },
  { title: 'CardBindRequest' },
);
export type CardBind = Static<typeof CardBindRequest>;

export const CardReasonRequest = Type.Object(
  { ...cardRef, reason: Opt(Type.String({ maxLength: 255 })) },
  { title: 'CardReasonRequest' },
);
export type CardReason = Static<typeof CardReasonRequest>;

export const CardPageRequest = Type.Object(
  {
    ...PageFields,
    cardModelId: Opt(Id),
    status: Opt(Type.Integer({ minimum: 1, maximum: 4 })),
    cardNumber: Opt(Type.String({ maxLength: 32, description: 'the number or its beginning' })),
    holderPhone: Opt(Type.String({ maxLength: 20 })),
    idNo: Opt(Type.String({ maxLength: 32 })),
    batchId: Opt(Id),
    medium: Opt(Medium),
    channel: Opt(Channel),
    merchantId: Opt(Id),
    shopId: Opt(Id),
    activated: Opt(Type.Boolean()),
    activeTimeRange: Opt(DateRange),
  },
  { title: 'CardPageRequest' },
);
export type CardPageQuery = Static<typeof CardPageRequest>;

export const BatchResponse = Type.Object(
  {
    id: Type.Integer(),
    batchNo: Type.String(),
    cardModelId: Type.Integer(),
    cardModelName: Type.String(),
    medium: Type.Integer(),
    cardCount: Type.Integer(),
    prefix: Type.String(),
    merchantId: Nullable(
      Type.Integer({ description: 'the merchant holding the stock (sells and activates the cards)' }),
    ),
    merchantName: Nullable(Type.String()),
    shopId: Nullable(Type.Integer()),
    shopName: Nullable(Type.String()),
    remark: Nullable(Type.String()),
    createdBy: Nullable(Type.Integer()),
    createdTime: Nullable(Type.String()),
  },
  { title: 'BatchResponse' },
);
export type Batch = Static<typeof BatchResponse>;

export const BatchGenerateRequest = Type.Object(
  {
    cardModelId: Id,
    count: Type.Integer({ minimum: 1, maximum: 100_000, description: 'cards to generate (at most 100 000 per call)' }),
    medium: Medium,
    prefix: Opt(
      Type.String({
        pattern: '^[0-9]{1,6}$',
        description: "1 to 6 digits the numbers start with (default 8 and the model id's last three digits)",
        examples: ['8001'],
      }),
    ),
    merchantId: Opt(Id),
    shopId: Opt(Id),
    remark: Opt(Type.String({ maxLength: 255 })),
  },
  { title: 'BatchGenerateRequest' },
);
export type BatchGenerate = Static<typeof BatchGenerateRequest>;

export const BatchIdRequest = Type.Object({ batchId: Id }, { title: 'BatchIdRequest' });

export const BatchPageRequest = Type.Object(
  { ...PageFields, cardModelId: Opt(Id), medium: Opt(Medium), batchNo: Opt(Type.String({ maxLength: 32 })) },
  { title: 'BatchPageRequest' },
);
export type BatchPageQuery = Static<typeof BatchPageRequest>;

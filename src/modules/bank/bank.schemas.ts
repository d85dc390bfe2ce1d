import { Type, type Static, type TSchema } from 'typebox';
import { DateRange, MobilePhone, Nullable, Opt, PageFields, CodeText } from '../../platform/http/schemas.js';

/** Bank-channel shapes of spec B 2.4 (and the ones designed here: SMS codes, login answers, export filters). */

const Text = Nullable(Type.String());
const Int = Nullable(Type.Integer());
const DateTime = Nullable(Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }));
const SmsCode = Type.String({ minLength: 1, maxLength: 16, description: 'the SMS verification code' });

/** OpenapiResponse {code, msg, data}: carried inside the envelope's data (docs/architecture.md §6). */
export const OpenapiResponse = <T extends TSchema>(data: T) => {
  const title = (data as { title?: unknown }).title;
  return Type.Object(
    {
      code: Type.Integer({
        description:
          '200 success, 500 SMS code expired, 501 SMS code wrong, 502 no activation for this phone, 503 operator quota exhausted, 504 already activated',
      }),
      msg: Type.String(),
      data: Nullable(data),
    },
    typeof title === 'string' ? { title: `OpenapiResponse${title}` } : {},
  );
};

export interface OpenapiAnswer<T> {
  code: number;
  msg: string;
  data: T | null;
}

export const SmsPurpose = Type.Enum(['login', 'user-login', 'activate'], {
  description:
    'login: bankLogin (bank staff); user-login: bankUserLogin (card holder); activate: activateBankCard (needs a bank operator session)',
});
export const SendSmsCodeRequest = Type.Object(
  {
    phone: MobilePhone,
    purpose: SmsPurpose,
  },
  { title: 'SendSmsCodeRequest' },
);
export type SendSmsCodeRequest = Static<typeof SendSmsCodeRequest>;
export const SendSmsCodeResponse = Type.Object(
  { expiresInS: Type.Integer({ description: 'seconds the code stays valid' }) },
  { title: 'SendSmsCodeResponse' },
);

export const BankLoginRequest = Type.Object(
  {
    mobile: MobilePhone,
    password: Type.String({ minLength: 1, maxLength: 128 }),
    verifyCode: SmsCode,
  },
  { title: 'BankLoginRequest' },
);
export type BankLoginRequest = Static<typeof BankLoginRequest>;

export const BankLoginData = Type.Object(
  {
    userId: Type.Integer(),
    mobile: Type.String(),
    name: Type.String(),
    accessToken: Type.String(),
    refreshToken: Type.String(),
    expiresTime: DateTime,
    businessId: Type.Integer({ description: 'the channel business (the bank)' }),
    businessName: Type.String(),
    operatorId: Int,
    operatorName: Text,
    channelInfoId: Int,
  },
  { title: 'BankLoginData' },
);
export type BankLoginData = Static<typeof BankLoginData>;

export const BankUserLoginRequest = Type.Object(
  {
    mobile: MobilePhone,
    verifyCode: SmsCode,
  },
  { title: 'BankUserLoginRequest' },
);
export type BankUserLoginRequest = Static<typeof BankUserLoginRequest>;

export const HolderCard = Type.Object(
  {
    cardNumber: Type.String(),
    cardModelName: Type.String(),
    status: Type.Integer({ description: '1 unbound, 2 bound, 3 disabled, 4 expired' }),
    activeTime: DateTime,
    expireTime: DateTime,
    userName: Text,
    idType: CodeText('IdType code "1"-"9"'),
    idNo: Nullable(Type.String({ description: 'masked' })),
  },
  { title: 'HolderCard' },
);

export const BankUserLoginData = Type.Object(
  {
    userId: Type.Integer({ description: 'the member id; the tokens serve /mp-api' }),
    mobile: Type.String(),
    accessToken: Type.String(),
    refreshToken: Type.String(),
    expiresTime: DateTime,
    cards: Type.Array(HolderCard, { description: 'the cards bound to this phone, newest first' }),
  },
  { title: 'BankUserLoginData' },
);
export type BankUserLoginData = Static<typeof BankUserLoginData>;

export const IdTypeField = Type.Integer({
  minimum: 1,
  maximum: 9,
  description: 'IdType: 1 ID card (default), 2 passport, 3–9 other documents',
});

export const BankCardActivateRequest = Type.Object(
  {
    userName: Type.String({ minLength: 1, maxLength: 64, description: 'must not be blank' }),
    phone: MobilePhone,
    userIdno: Type.String({
      minLength: 1,
      maxLength: 32,
      description: 'must not be blank; an ID card number must carry the right check character',
    }),
    userIdType: Opt(IdTypeField),
    verifyCode: SmsCode,
  },
  { title: 'BankCardActivateRequest' },
);
export type BankCardActivateRequest = Static<typeof BankCardActivateRequest>;

export const ActivationData = Type.Object(
  {
    id: Type.Integer({ description: 'activation record id' }),
    orderNo: Type.String(),
    cardNumber: Type.String(),
    cardModelName: Type.String(),
    memberId: Type.Integer(),
    activeTime: DateTime,
    expireTime: DateTime,
  },
  { title: 'ActivationData' },
);
export type ActivationData = Static<typeof ActivationData>;

export const OpenapiChannelOperator = Type.Object(
  {
    id: Type.Integer(),
    channelInfoId: Type.Integer({ description: 'the business channel' }),
    operatorId: Type.Integer({ description: "the operator's number in the bank's own system" }),
    operatorName: Type.String(),
    totalCardNum: Type.Integer({ description: 'total cards the operator may activate' }),
    dayCardNum: Type.Integer({ description: 'cards the operator may activate per day' }),
    status: Type.Integer({ description: '1 enabled, 0 disabled' }),
    addDate: DateTime,
    merchantId: Int,
    shopId: Int,
  },
  { title: 'OpenapiChannelOperator' },
);
export type OpenapiChannelOperator = Static<typeof OpenapiChannelOperator>;

const statFilters = {
  operatorId: Opt(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: "the operator's number" })),
  operatorName: Opt(Type.String({ maxLength: 64, description: 'found within the name' })),
  userPhone: Opt(Type.String({ maxLength: 20 })),
  activeTimeRange: Opt(DateRange),
  cardNumber: Opt(Type.String({ maxLength: 32 })),
};

export const BankStatRequest = Type.Object({ ...PageFields, ...statFilters }, { title: 'BankStatRequest' });
export type BankStatRequest = Static<typeof BankStatRequest>;

export const BankStatResponse = Type.Object(
  {
    operatorName: Type.String(),
    num: Type.Integer({ description: 'activations matching userPhone, activeTimeRange and cardNumber' }),
    operatorId: Type.Integer(),
    totalNum: Type.Integer({ description: 'all activations of the operator' }),
    dayNum: Type.Integer({ description: "today's activations of the operator" }),
  },
  { title: 'BankStatResponse' },
);
export type BankStatResponse = Static<typeof BankStatResponse>;

export const ActiveStatus = Type.Integer({
  minimum: 0,
  maximum: 1,
  description: '0 confirming, 1 bound; both when omitted',
});

export const ActivationDetailListRequest = Type.Object(
  {
    ...PageFields,
    operatorId: statFilters.operatorId,
    activeStatus: Opt(ActiveStatus),
  },
  { title: 'ActivationDetailListRequest' },
);
export type ActivationDetailListRequest = Static<typeof ActivationDetailListRequest>;

export const ActivationDetailItemResponse = Type.Object(
  {
    id: Type.Integer(),
    activeTime: DateTime,
    cardNumber: Text,
    userName: Type.String(),
    userPhone: Type.String(),
    orderNo: Type.String(),
    userIdno: Type.String({ description: 'masked unless the account holds bank:export:plain' }),
    activeStatus: Type.Integer(),
    statusDesc: Type.String(),
  },
  { title: 'ActivationDetailItemResponse' },
);
export type ActivationDetailItem = Static<typeof ActivationDetailItemResponse>;

export const ExportBankStatDetailRequest = Type.Object(
  { ...statFilters, activeStatus: Opt(ActiveStatus) },
  { title: 'ExportBankStatDetailRequest' },
);
export type ExportBankStatDetailRequest = Static<typeof ExportBankStatDetailRequest>;

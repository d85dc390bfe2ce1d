import { Type, type Static } from 'typebox';
import { DateRange, MobilePhone, Nullable, Opt, PageFields } from '../../platform/http/schemas.js';

/** Mini-program authorised login (spec A 4.1 "oauth2": shape designed here, see docs). */
export const MpLoginRequest = Type.Object(
  {
    code: Type.String({ minLength: 1, maxLength: 128, description: 'the login code of wx.login()' }),
    nickname: Opt(Type.String({ maxLength: 64, description: 'the nickname the user chose to share' })),
    avatar: Opt(
      Type.String({
        maxLength: 512,
        pattern: '^https?://',
        description: 'an http(s) URL',
        examples: ['https://thirdwx.qlogo.cn/mmopen/avatar.png'],
      }),
    ),
  },
  { title: 'MpLoginRequest' },
);
export type MpLoginRequest = Static<typeof MpLoginRequest>;

// The answer is the LoginResponse of spec A 2.3, shared with staff login.
export { LoginResponse } from '../../platform/auth/login-schemas.js';

const Text = Nullable(Type.String());
const DateTime = Nullable(Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }));

/** Spec A 2.4 MemberResponse. */
const memberFields = {
  id: Type.Integer(),
  openId: Text,
  mobile: Text,
  status: Type.Integer({ description: '1 enabled, 0 disabled' }),
  registerIp: Text,
  registerTerminal: Nullable(Type.Integer({ description: '1 app, 2 mini program' })),
  loginIp: Text,
  loginDate: DateTime,
  nickname: Text,
  avatar: Text,
  name: Text,
  sex: Nullable(Type.Integer({ description: '1 male, 2 female' })),
  areaId: Nullable(Type.Integer()),
  birthday: Nullable(Type.String({ description: 'YYYY-MM-DD 00:00:00' })),
  mark: Text,
  point: Type.Integer(),
  tagIds: Nullable(Type.String({ description: 'comma-separated tag ids' })),
  levelId: Nullable(Type.Integer()),
  experience: Type.Integer(),
  groupId: Nullable(Type.Integer()),
};
export const MemberResponse = Type.Object(memberFields, { title: 'MemberResponse' });
export type MemberResponse = Static<typeof MemberResponse>;

/** Spec A 2.4 MemberPageResponse: the member, its channel and registration; `password` is never sent. */
export const MemberPageResponse = Type.Object(
  {
    ...memberFields,
    channel: Nullable(Type.String({ description: 'ChannelType code "1"-"8"' })),
    thirdId: Text,
    password: Type.Null({ description: 'always null: password hashes never leave the service' }),
    isDeleted: Type.Boolean(),
    createdTime: DateTime,
  },
  { title: 'MemberPageResponse' },
);
export type MemberPageResponse = Static<typeof MemberPageResponse>;

export const MemberPageRequest = Type.Object(
  {
    ...PageFields,
    mobile: Opt(
      Type.String({
        pattern: '^\\d{1,11}$',
        description: '1-11 digits: the members whose mobile starts with them',
        examples: ['138'],
      }),
    ),
    createdTimeRange: Opt(DateRange),
    status: Opt(Type.Integer({ minimum: 0, maximum: 9 })),
    channel: Opt(
      Type.Integer({ minimum: 1, maximum: 8, description: 'ChannelType 1-8 (the code as a number or a string)' }),
    ),
  },
  { title: 'MemberPageRequest' },
);
export type MemberPageRequest = Static<typeof MemberPageRequest>;

const SmsCode = Type.String({ minLength: 1, maxLength: 16, description: 'the code texted to the phone' });

/** Spec A 2.4 MemberBindPhoneRequest (its inherited pageNum and pageSize are accepted and unused). */
export const MemberBindPhoneRequest = Type.Object(
  { ...PageFields, phone: MobilePhone, smsCode: SmsCode },
  { title: 'MemberBindPhoneRequest' },
);
export type MemberBindPhoneRequest = Static<typeof MemberBindPhoneRequest>;

export const MemberSendSmsCodeRequest = Type.Object({ phone: MobilePhone }, { title: 'MemberSendSmsCodeRequest' });
export type MemberSendSmsCodeRequest = Static<typeof MemberSendSmsCodeRequest>;

import { Type, type Static } from 'typebox';
import { Opt } from '../../platform/http/schemas.js';

/** Mini-program authorised login (spec A 4.1 "oauth2": shape designed here, see docs). */
export const MpLoginRequest = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 128, description: 'the login code of wx.login()' }),
  nickname: Opt(Type.String({ maxLength: 64, description: 'the nickname the user chose to share' })),
  avatar: Opt(Type.String({ maxLength: 512, pattern: '^https?://', description: 'an http(s) URL' })),
});
export type MpLoginRequest = Static<typeof MpLoginRequest>;

// The answer is the LoginResponse of spec A 2.3, shared with staff login.
export { LoginResponse } from '../auth/auth.schemas.js';

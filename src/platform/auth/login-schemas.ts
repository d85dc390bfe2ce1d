import { Type } from 'typebox';
import { Nullable, Opt } from '../http/schemas.js';

export const LoginRequest = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64 }),
    password: Type.String({ minLength: 1, maxLength: 128 }),
    code: Opt(Type.String({ maxLength: 16, description: 'the captcha code' })),
    uuid: Opt(
      Type.String({ maxLength: 64, description: 'the X-Captcha-Key of the captcha, for clients without cookies' }),
    ),
  },
  { title: 'LoginRequest' },
);

export const LoginResponse = Type.Object(
  {
    userId: Type.Integer(),
    openId: Nullable(Type.String()),
    mobile: Nullable(Type.String()),
    accessToken: Type.String(),
    refreshToken: Type.String(),
    expiresTime: Nullable(Type.String({ description: 'access token expiry, YYYY-MM-DD HH:mm:ss' })),
  },
  { title: 'LoginResponse' },
);

export const RefreshTokenRequest = Type.Object(
  {
    refreshToken: Type.String({ minLength: 16, maxLength: 256 }),
  },
  { title: 'RefreshTokenRequest' },
);

export const RefreshTokenResponse = Type.Object(
  {
    userId: Type.Integer(),
    accessToken: Type.String(),
    refreshToken: Type.String(),
    expiresTime: Nullable(Type.String()),
  },
  { title: 'RefreshTokenResponse' },
);

import { AppError, ErrorCode, errcodes } from '../errors.js';
import { SmsCodeError } from '../sms/index.js';

/** Auth module codes 1_002_000_000+ (docs/architecture.md §6). */
export const AuthError = {
  ...errcodes({
    BAD_CREDENTIALS: [1_002_000_000, 'wrong account or password (the same answer for an unknown account)'],
    ACCOUNT_DISABLED: [1_002_000_001, 'the account is disabled'],
    VERIFY_CODE_IS_NULL: [1_002_000_002, 'no captcha was requested for this session: request one first'],
    CAPTCHA_WRONG: [1_002_000_003, 'the captcha is wrong (it is cleared: request a new one)'],
  }),
  // Raised by the shared SMS codes (smsCodeExpired/smsCodeWrong in src/platform/sms), numbers kept here.
  SMS_CODE_EXPIRED: SmsCodeError.EXPIRED,
  SMS_CODE_WRONG: SmsCodeError.WRONG,
} as const;

export const badCredentials = () => new AppError(AuthError.BAD_CREDENTIALS, 'wrong username or password');
export const accountDisabled = () => new AppError(AuthError.ACCOUNT_DISABLED, 'this account is disabled');
export const captchaMissing = () => new AppError(AuthError.VERIFY_CODE_IS_NULL, 'please request a captcha first');
export const captchaWrong = () =>
  new AppError(AuthError.CAPTCHA_WRONG, 'the captcha is wrong, please request a new one');
export const accountLocked = (until: Date) => {
  const minutes = Math.max(1, Math.ceil((until.getTime() - Date.now()) / 60_000));
  return new AppError(
    ErrorCode.LOCKED,
    `too many failed logins: the account is locked for your address, try again in ${minutes} minute${minutes === 1 ? '' : 's'}`,
  );
};
export const accountUnderAttack = () =>
  new AppError(ErrorCode.TOO_MANY_REQUESTS, 'too many failed logins for this account, please try again later');

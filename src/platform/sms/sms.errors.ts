import { AppError } from '../errors.js';

/** SMS codes 1_024_000_000+ (docs/errors.md). */
export const SmsError = {
  SERVICE_UNAVAILABLE: 1_024_000_001,
  PHONE_INVALID: 1_024_000_002,
  REFUSED_FOR_PHONE: 1_024_000_003,
} as const;

/**
 * The SMS-code answers keep the auth module's numbers (DESIGN.md §6), so every channel that checks a
 * code (member bindPhone, bank logins and activation) reports them alike without importing a module.
 */
export const SmsCodeError = {
  EXPIRED: 1_002_000_004,
  WRONG: 1_002_000_005,
} as const;

/** `cause` reaches the log (errcode ≥ 500 is logged with its error), never the client: it may name hosts. */
export const smsUnavailable = (cause?: unknown) =>
  new AppError(SmsError.SERVICE_UNAVAILABLE, 'the SMS service is unavailable, please try again later', 200, { cause });
export const phoneInvalid = () =>
  new AppError(SmsError.PHONE_INVALID, 'the phone number is invalid: it must be an 11-digit mainland mobile number');
export const smsRefusedForPhone = (cause?: unknown) =>
  new AppError(SmsError.REFUSED_FOR_PHONE, 'no SMS can be sent to this phone number at the moment, please check it or try again later', 200, { cause });
export const smsCodeExpired = () => new AppError(SmsCodeError.EXPIRED, 'the SMS code has expired, please request a new one');
export const smsCodeWrong = () => new AppError(SmsCodeError.WRONG, 'the SMS code is wrong');

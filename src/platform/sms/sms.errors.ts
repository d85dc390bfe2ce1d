import { AppError, errcodes } from '../errors.js';

/** SMS codes 1_024_000_000+ (docs/errors.md). */
export const SmsError = errcodes({
  SERVICE_UNAVAILABLE: [1_024_000_001, 'the SMS service is unavailable'],
  PHONE_INVALID: [1_024_000_002, 'the phone number is not an 11-digit mainland mobile'],
  REFUSED_FOR_PHONE: [1_024_000_003, 'the SMS provider refuses this number (its blacklist or its per-number limits)'],
});

/**
 * The SMS-code answers keep the auth module's numbers (docs/architecture.md §6), so every channel that checks a
 * code (member bindPhone, bank logins and activation) reports them alike without importing a module.
 */
export const SmsCodeError = errcodes({
  EXPIRED: [1_002_000_004, 'the SMS code has expired or was never requested'],
  WRONG: [1_002_000_005, 'the SMS code is wrong'],
});

/** `cause` reaches the log (errcode ≥ 500 is logged with its error), never the client: it may name hosts. */
export const smsUnavailable = (cause?: unknown) =>
  new AppError(SmsError.SERVICE_UNAVAILABLE, 'the SMS service is unavailable, please try again later', 200, { cause });
export const phoneInvalid = () =>
  new AppError(SmsError.PHONE_INVALID, 'the phone number is invalid: it must be an 11-digit mainland mobile number');
export const smsRefusedForPhone = (cause?: unknown) =>
  new AppError(
    SmsError.REFUSED_FOR_PHONE,
    'no SMS can be sent to this phone number at the moment, please check it or try again later',
    200,
    { cause },
  );
export const smsCodeExpired = () =>
  new AppError(SmsCodeError.EXPIRED, 'the SMS code has expired, please request a new one');
export const smsCodeWrong = () => new AppError(SmsCodeError.WRONG, 'the SMS code is wrong');

import { AppError, errcodes, forbidden } from '../../platform/errors.js';
import type { OpenapiAnswer } from './bank.schemas.js';

/**
 * Bank-channel module codes 1_014_000_000+ (docs/errors.md): refusals that are not among the
 * OpenapiResponse codes and travel as envelope errors.
 */
export const BankError = errcodes({
  CARD_POOL_EMPTY: [1_014_000_001, "the channel's card pool is empty"],
  NOT_AN_OPERATOR: [
    1_014_000_002,
    'the bank account is not linked to an operator (only operators activate cards or request activation codes)',
  ],
  CHANNEL_DISABLED: [1_014_000_003, "the channel, its bank, the bank's merchant or the operator is disabled"],
});

export const cardPoolEmpty = () =>
  new AppError(
    BankError.CARD_POOL_EMPTY,
    "no card is left in this channel's card pool: ask the card administrator to issue cards to the channel",
  );
export const notAnOperator = () =>
  new AppError(
    BankError.NOT_AN_OPERATOR,
    'this bank account is not linked to an operator: only operators activate cards',
  );
export const channelDisabled = () =>
  new AppError(BankError.CHANNEL_DISABLED, 'this bank channel or operator is disabled');
export const merchantDisabled = () => new AppError(BankError.CHANNEL_DISABLED, "this bank's merchant is disabled");
export const bankSessionGone = () => forbidden('this bank account is no longer attached to its bank');

/** The OpenapiResponse codes of the bank channel (docs/architecture.md §6), answered inside the envelope's data. */
export const OpenapiCode = {
  SUCCESS: 200,
  CODE_EXPIRED: 500,
  CODE_WRONG: 501,
  NO_ACTIVATION: 502,
  QUOTA_EXHAUSTED: 503,
  ALREADY_ACTIVATED: 504,
} as const;

export type OpenapiRefusal = OpenapiAnswer<never> & {
  code: Exclude<(typeof OpenapiCode)[keyof typeof OpenapiCode], 200>;
};

export const openapiOk = <T>(data: T): OpenapiAnswer<T> => ({ code: OpenapiCode.SUCCESS, msg: 'success', data });
const refusal = (code: OpenapiRefusal['code'], msg: string): OpenapiRefusal => ({ code, msg, data: null });

export const codeExpired = () =>
  refusal(OpenapiCode.CODE_EXPIRED, 'the SMS code has expired, please request a new one');
export const codeWrong = () => refusal(OpenapiCode.CODE_WRONG, 'the SMS code is wrong');
export const noActivation = () =>
  refusal(OpenapiCode.NO_ACTIVATION, 'this phone number has no card activated through a bank channel');
export const quotaExhausted = (scope: 'total' | 'today', used: number, quota: number) =>
  refusal(
    OpenapiCode.QUOTA_EXHAUSTED,
    scope === 'total'
      ? `the operator's activation quota is used up: ${used} of ${quota} cards activated`
      : `the operator's activation quota for today is used up: ${used} of ${quota} cards activated today`,
  );
export const alreadyActivated = (what: 'phone' | 'idNo') =>
  refusal(
    OpenapiCode.ALREADY_ACTIVATED,
    what === 'phone'
      ? 'this phone number has already activated a card in this channel'
      : 'this ID number has already activated a card in this channel',
  );

/** The SMS-code check of the shared codes, as the OpenapiResponse refusal it answers (null: the code is right). */
export function codeRefusal(check: 'ok' | 'expired' | 'wrong'): OpenapiRefusal | null {
  return check === 'ok' ? null : check === 'expired' ? codeExpired() : codeWrong();
}

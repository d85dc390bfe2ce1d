import { AppError, conflict, errcodes, forbidden, notFound } from '../../platform/errors.js';

/**
 * Card refusals. Range 1_023_000_000 (docs/errors.md) for the card states a client must tell apart;
 * common codes (404, 409, 403) elsewhere.
 */
export const CardError = errcodes({
  NOT_ACTIVATED: [1_023_000_001, 'the card is not activated yet'],
  ALREADY_ACTIVATED: [1_023_000_002, 'the card is already activated'],
  DISABLED: [1_023_000_003, 'the card is disabled'],
  EXPIRED: [1_023_000_004, 'the card has expired'],
  ALREADY_BOUND: [1_023_000_005, 'the card is already bound to a holder'],
  NOT_BOUND: [1_023_000_006, 'the card is not bound to a holder'],
  MODEL_DISABLED: [1_023_000_007, 'the card model is disabled'],
  NUMBERS_EXHAUSTED: [1_023_000_008, 'too few free card numbers are left with the prefix'],
});

export const cardNotActivated = (n: string) =>
  new AppError(CardError.NOT_ACTIVATED, `card ${n} has not been activated yet`);
export const cardAlreadyActivated = (n: string) =>
  new AppError(CardError.ALREADY_ACTIVATED, `card ${n} is already activated`);
export const cardDisabled = (n: string) => new AppError(CardError.DISABLED, `card ${n} is disabled`);
export const cardExpired = (n: string) => new AppError(CardError.EXPIRED, `card ${n} has expired`);
export const cardAlreadyBound = (n: string) =>
  new AppError(CardError.ALREADY_BOUND, `card ${n} is already bound to a holder: unbind it first`);
export const cardNotBound = (n: string) => new AppError(CardError.NOT_BOUND, `card ${n} is not bound to a holder`);
export const modelDisabled = (name: string) =>
  new AppError(CardError.MODEL_DISABLED, `card model "${name}" is disabled: enable it first`);
export const numbersExhausted = (prefix: string) =>
  new AppError(
    CardError.NUMBERS_EXHAUSTED,
    `too few free card numbers are left with prefix ${prefix}: choose another prefix`,
  );

export const cardNotFound = () => notFound('card');
export const cardModelNotFound = () => notFound('card model');
export const ruleNotFound = () => notFound('card model rule');
export const priceNotFound = () => notFound('price period');
export const batchNotFound = () => notFound('card batch');
export const resourceNotFound = () => notFound('resource (resourceId)');
export const skuNotFound = () => notFound("tourism-card SKU (skuId) of the card model's merchant");
export const merchantNotFound = () => notFound('merchant (merchantId)');
export const shopNotFound = () => notFound('shop (shopId) of the merchant');
export const staffNotFound = () => notFound('sales account (activeBy)');
export const ruleExists = (resourceName: string) =>
  conflict(`the card model already has a rule for resource "${resourceName}"`);
export const notYourModel = () => forbidden("only platform users and the card model's own merchant may change it");
export const onlyPlatformMovesCards = () => forbidden('only platform users may move a card to another merchant');
export const notYourShop = () => forbidden('you may only sell cards through your own shop');
export const foreignResource = () => forbidden("a merchant's card model admits only resources of its own merchant");

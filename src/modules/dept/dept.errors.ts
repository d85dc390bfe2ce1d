import { badRequest, conflict, forbidden, notFound } from '../../platform/errors.js';

/** Department refusals: common codes only (docs/errors.md, range 1_019_000_000 unused). */
export const deptNotFound = () => notFound('department');
export const parentNotFound = () => notFound('parent department (parentId)');
export const merchantNotFound = () => notFound('merchant (merchantId)');
export const shopNotFound = () => notFound('shop (shopId)');
export const leaderNotFound = () => notFound("leader (leaderUserId) among the staff of the department's merchant");
export const ownerRequired = () =>
  badRequest('merchantId is required for a top-level department (or shopId, whose merchant it takes)');
export const shopOfOtherMerchant = () => badRequest('shopId is invalid: the shop belongs to another merchant');
export const ownerDiffersFromParent = (field: 'merchantId' | 'shopId') =>
  badRequest(
    `${field} is invalid: a department belongs to its parent department's ${field === 'merchantId' ? 'merchant' : 'shop'}`,
  );
export const parentOfAnotherOwner = () =>
  conflict(
    'parentId is invalid: the parent must be a department of the same merchant, and of the same shop when it has one',
  );
export const parentDisabled = () => conflict('the parent department is disabled: enable it first');
export const wouldLoop = () => conflict('a department cannot move under itself or one of its own sub-departments');
export const siblingNameTaken = (name: string) =>
  conflict(`a department named "${name}" already exists under that parent`);
export const notYourMerchant = () => forbidden('the record belongs to another merchant');
export const notYourShop = () => forbidden('the record belongs to another shop');

import { describeReference, type Reference } from '../../platform/db/references.js';
import { badRequest, conflict, notFound } from '../../platform/errors.js';

/** Catalog (resource and SKU) refusals: common codes only (docs/errors.md, range 1_016_000_000 unused). */
export const spuNotFound = () => notFound('resource (spu)');
export const goodsNotFound = () => notFound('resource (goodsId)');
export const skuNotFound = () => notFound('SKU');
export const shopNotFound = () => notFound('shop (shopId)');
export const cardNumOnlyForCards = () =>
  badRequest('cardNum is invalid: only tourism-card goods (resourceType 1) issue cards');
export const tooManyDecimals = (field: string) => badRequest(`${field} is invalid: at most 4 decimal places`);
export const duplicateEntrance = (name: string) =>
  badRequest(`skuEntranceList is invalid: the entrance "${name}" is listed twice`);
export const foreignEntrance = (index: number, id: number) =>
  badRequest(`skuEntranceList[${index}].id is invalid: ${id} is not an entrance of this SKU`);
export const otherShopGoods = () =>
  conflict('goodsId is invalid: a SKU can move only to another resource of the same shop');
export const cardTypeChangeWithCardSkus = (skus: Reference) => {
  const named = `${describeReference(skus)} ${skus.count === 1 ? 'carries' : 'carry'} cardNum`;
  return conflict(
    `resourceType is invalid: the resource is a tourism card (1) and ${named}: remove those or move them to another tourism-card resource first`,
  );
};
export const shopChangeWithSkus = (count: number) =>
  conflict(
    `the resource still has ${count} SKU${count === 1 ? '' : 's'} of its shop: it can move to another shop only without SKUs`,
  );

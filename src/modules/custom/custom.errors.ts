import { conflict, notFound } from '../../platform/errors.js';

/** Custom-distributor refusals: common codes only (docs/errors.md, range 1_009_000_000 unused). */
export const disNotFound = () => notFound('custom distributor');
export const disOfUserNotFound = () => notFound('custom distributor (customDisId)');
export const userNotFound = () => notFound('custom distributor user');
export const disDisabled = () => conflict('the custom distributor is disabled: enable it before adding users to it');
export const disNameTaken = (name: string) => conflict(`a custom distributor named "${name}" already exists`);
export const mobileTaken = (mobile: string) => conflict(`mobile ${mobile} is already a user of this distributor`);
export const batchRaced = () =>
  conflict('a mobile of this batch was added to the distributor meanwhile: send the batch again');

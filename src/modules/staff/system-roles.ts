/**
 * Role codes the system finds roles by: the bootstrap administrator's, the demo's, and the default
 * shop user's role that addShop links. Nobody may give one to a role of their own (addRole refuses
 * them), so a merchant cannot make its role the one another merchant's shops are given.
 */
export const SHOP_ADMIN_CODE = 'shop_admin';
const RESERVED_ROLE_CODES: readonly string[] = ['super_admin', 'merchant_admin', SHOP_ADMIN_CODE];

/** Compared without case, so no look-alike of a system code can be made either. */
export function isReservedRoleCode(code: string): boolean {
  return RESERVED_ROLE_CODES.includes(code.trim().toLowerCase());
}

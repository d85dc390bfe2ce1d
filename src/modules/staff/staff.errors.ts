import { AppError, conflict, errcodes, forbidden, notFound } from '../../platform/errors.js';

/** Staff and role refusals; organisation administration's range 1_022_000_000 (docs/errors.md). */
export const userNotFound = () => notFound('staff user');
export const roleNotFound = (id?: number) => notFound(id === undefined ? 'role' : `role ${id}`);
export const usernameTaken = (username: string) => conflict(`username "${username}" is already taken`);
export const roleCodeTaken = (code: string) => conflict(`role code "${code}" is already taken`);
export const roleCodeReserved = (code: string) =>
  conflict(`role code "${code}" is reserved for a role the system creates itself: choose another code`);
export const merchantNotFound = () => notFound('merchant (merchantId)');
export const shopNotFound = () => notFound('shop (shopId) of the merchant');
export const deptNotFound = () => notFound("department (deptId) of the user's merchant or shop");
export const placeOutsideScope = () => forbidden('you may only add users to your own merchant or shop');
export const roleOwnerOutsideScope = () => forbidden('you may only add roles to your own merchant or shop');
export const roleOutsideScope = () => forbidden('the role belongs to another merchant or shop');
export const notYourRole = () =>
  forbidden('this role belongs to the platform or another merchant or shop: you may only change your own roles');

export const StaffError = errcodes({
  GRANT_BEYOND_OWN: [
    1_022_000_002,
    'a grant beyond what the caller holds (a permission, a role, or an account holding a permission the caller lacks)',
  ],
  NOT_ON_SELF: [1_022_000_003, 'disabling or deleting your own account'],
  LAST_SUPER_ADMIN: [1_022_000_004, 'the change would leave no enabled account holding every permission (*)'],
});

/** errcode 1_022_000_002: a grant beyond what the caller holds. */
export const GRANT_BEYOND_OWN = StaffError.GRANT_BEYOND_OWN;
export const grantBeyondOwn = (what: string) =>
  new AppError(GRANT_BEYOND_OWN, `you cannot grant ${what}: you do not hold it yourself`);
export const accountAboveYou = (permission: string) =>
  new AppError(
    GRANT_BEYOND_OWN,
    `this account holds ${permission}, which you do not hold: only someone holding it may change the account`,
  );
/** errcode 1_022_000_003: an account acting on itself where that would lock it out. */
export const NOT_ON_SELF = StaffError.NOT_ON_SELF;
export const notOnSelf = (what: string) => new AppError(NOT_ON_SELF, `you cannot ${what} your own account`);
/** errcode 1_022_000_004: the last enabled holder of `*` cannot be disabled or deleted. */
export const LAST_SUPER_ADMIN = StaffError.LAST_SUPER_ADMIN;
export const lastSuperAdmin = () =>
  new AppError(
    LAST_SUPER_ADMIN,
    'this is the last enabled account holding every permission (*): the platform would have no administrator left',
  );

export const unknownPermission = (name: string) =>
  new AppError(
    400,
    `permissions is invalid: "${name}" is not a permission of this service (see /system/permission/queryPermissionList)`,
  );
export const roleForOtherPlace = (name: string) =>
  conflict(`role "${name}" belongs to another merchant or shop than the user`);
export const roleInUse = (n: number) => conflict(`the role is held by ${n} user(s): take it from them first`);
export const wrongOldPassword = () => new AppError(400, 'oldPassword is invalid: it is not your current password');
export const samePassword = () => new AppError(400, 'newPassword is invalid: it must differ from the current password');

// The staff module's front door: the only file other modules import (docs/architecture.md §4).
export { staffModule } from './staff.module.js';
export { countStaff, ensureRole, insertStaff, stampStaffLogin } from './bootstrap.repository.js';
export { firstUngrantable } from './grants.js';
export { deletableUser } from './manageable.js';
export { findRoleIdByCode, insertRole } from './role.repository.js';
export { StaffError, grantBeyondOwn } from './staff.errors.js';
export { insertUser, replaceUserRoles, setUserStatus } from './staff.repository.js';
export { keepingASuperAdmin } from './super-admins.js';
export { SHOP_ADMIN_CODE } from './system-roles.js';
export {
  deleteShopStaff,
  ensureGlobalRole,
  freeUsername,
  insertShopUser,
  shopStaffIds,
} from './shop-staff.repository.js';

import { defineModule } from '../../platform/module.js';
import { createRoleService } from './role.service.js';
import { staffRoutes } from './staff.routes.js';
import { createStaffService } from './staff.service.js';
import { StaffError } from './staff.errors.js';
import { MerchantError } from '../merchant/index.js';

/** Staff users and roles (issue 15). */
export const staffModule = defineModule({
  name: 'staff',
  errcodes: [StaffError, MerchantError],
  routes: ({ db, tokens, permissions }) =>
    staffRoutes({ users: createStaffService({ db, tokens }), roles: createRoleService({ db, tokens, permissions }) }),
});

import { defineModule } from '../../platform/module.js';
import { createRoleService } from './role.service.js';
import { staffRoutes } from './staff.routes.js';
import { createStaffService } from './staff.service.js';

/** Staff users and roles (issue 15). */
export const staffModule = defineModule({
  name: 'staff',
  routes: ({ db, tokens, permissions }) =>
    staffRoutes({ users: createStaffService({ db, tokens }), roles: createRoleService({ db, tokens, permissions }) }),
});

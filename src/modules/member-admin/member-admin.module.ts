import { defineModule } from '../../platform/module.js';
import { memberAdminRoutes } from './member-admin.routes.js';
import { createMemberAdminService } from './member-admin.service.js';

/** Members as staff administer them (issue 15); the member's own operations live in the member module. */
export const memberAdminModule = defineModule({
  name: 'member-admin',
  routes: ({ db, tokens }) => memberAdminRoutes(createMemberAdminService({ db, tokens })),
});

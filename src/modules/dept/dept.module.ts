import { defineModule } from '../../platform/module.js';
import { deptRoutes } from './dept.routes.js';
import { createDeptService } from './dept.service.js';
import { MerchantError } from '../merchant/index.js';

/** Departments (spec B 2.6, 4.6 addDept, and the operations around it). */
export const deptModule = defineModule({
  name: 'dept',
  errcodes: [MerchantError],
  routes: ({ db }) => deptRoutes(createDeptService({ db })),
});

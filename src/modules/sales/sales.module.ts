import { defineModule } from '../../platform/module.js';
import { salesRoutes } from './sales.routes.js';
import { createSalesService } from './sales.service.js';
import { MerchantError } from '../merchant/index.js';

/** Sales institutions (spec A 4.7): the reference module that new modules copy (docs/new-module.md). */
export const salesModule = defineModule({
  name: 'sales',
  errcodes: [MerchantError],
  routes: ({ db }) => salesRoutes(createSalesService({ db })),
});

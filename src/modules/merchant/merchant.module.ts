import { defineModule } from '../../platform/module.js';
import { merchantRoutes } from './merchant.routes.js';
import { createMerchantService } from './merchant.service.js';

/** Merchants: the companies on the platform (issue 15). */
export const merchantModule = defineModule({
  name: 'merchant',
  routes: ({ db, tokens }) => merchantRoutes(createMerchantService({ db, tokens })),
});

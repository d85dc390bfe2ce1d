import { defineModule } from '../../platform/module.js';
import { shopRoutes } from './shop.routes.js';
import { createShopService } from './shop.service.js';
import { StaffError } from '../staff/index.js';
import { MerchantError } from '../merchant/index.js';

/** Shops (spec B 2.6, 4.6 addShop, and the operations around it). */
export const shopModule = defineModule({
  name: 'shop',
  errcodes: [StaffError, MerchantError],
  routes: ({ db, tokens }) => shopRoutes(createShopService({ db, tokens })),
});

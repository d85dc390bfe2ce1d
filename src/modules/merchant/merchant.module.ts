import { defineModule } from '../../platform/module.js';
import { merchantFinanceRoutes } from './merchant-finance.routes.js';
import { createMerchantFinanceService } from './merchant-finance.service.js';
import { merchantRoutes } from './merchant.routes.js';
import { createMerchantService } from './merchant.service.js';
import { MerchantError } from './merchant.errors.js';

/** Merchants: the companies on the platform (issue 15), and their finance accounts. */
export const merchantModule = defineModule({
  name: 'merchant',
  errcodes: [MerchantError],
  routes: ({ db, tokens }) => [
    ...merchantRoutes(createMerchantService({ db, tokens })),
    ...merchantFinanceRoutes(createMerchantFinanceService({ db })),
  ],
});

import { defineModule } from '../../platform/module.js';
import { customRoutes } from './custom.routes.js';
import { createCustomService } from './custom.service.js';
import { MerchantError } from '../merchant/index.js';

/** Custom distributors and their users (spec A 2.8, 4.6), including the open-channel batch. */
export const customModule = defineModule({
  name: 'custom',
  errcodes: [MerchantError],
  routes: ({ db }) => customRoutes(createCustomService({ db })),
});

import { defineModule } from '../../platform/module.js';
import { contractRoutes } from './contract.routes.js';
import { createContractService } from './contract.service.js';
import { MerchantError } from '../merchant/index.js';

/** Merchant contracts (spec B 2.6, 4.6 addMerchantContract, and the operations around it). */
export const contractModule = defineModule({
  name: 'contract',
  errcodes: [MerchantError],
  routes: ({ db }) => contractRoutes(createContractService({ db })),
});

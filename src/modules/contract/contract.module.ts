import { defineModule } from '../../platform/module.js';
import { contractRoutes } from './contract.routes.js';
import { createContractService } from './contract.service.js';

/** Merchant contracts (spec B 2.6, 4.6 addMerchantContract, and the operations around it). */
export const contractModule = defineModule({
  name: 'contract',
  routes: ({ db }) => contractRoutes(createContractService({ db })),
});

import { defineModule } from '../../platform/module.js';
import { verifierRoutes } from './verifier.routes.js';
import { createVerifierService } from './verifier.service.js';
import { MerchantError } from '../merchant/index.js';

/** Verifier administration: accounts and where each may check (issue 15). */
export const verifierModule = defineModule({
  name: 'verifier',
  errcodes: [MerchantError],
  routes: ({ db, tokens }) => verifierRoutes(createVerifierService({ db, tokens })),
});

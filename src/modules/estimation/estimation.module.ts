import { defineModule } from '../../platform/module.js';
import { estimationRoutes } from './estimation.routes.js';
import { createEstimationService } from './estimation.service.js';
import { EstimationError } from './estimation.errors.js';
import { SettlementError } from '../settlement/settlement.errors.js';

/** Estimation sheets (spec A 2.6, 4.4; DOMAIN.md §3), computed by the settlement calculator. */
export const estimationModule = defineModule({
  name: 'estimation',
  errcodes: [EstimationError, SettlementError.AMOUNT_TOO_LARGE],
  routes: ({ db, store }) => estimationRoutes(createEstimationService({ db, store })),
});

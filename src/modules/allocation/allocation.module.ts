import { defineModule } from '../../platform/module.js';
import { allocationRoutes } from './allocation.routes.js';
import { createBatchService } from './batch.service.js';
import { createCalcService } from './calc.service.js';
import { AllocationError } from './allocation.errors.js';

/** Monthly allocation of card revenue to scenic spots (spec A 2.5, 4.3; docs/domain.md §2). */
export const allocationModule = defineModule({
  name: 'allocation',
  errcodes: [AllocationError],
  routes: ({ db }) => allocationRoutes(createCalcService({ db }), createBatchService({ db })),
});

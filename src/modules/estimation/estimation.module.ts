import { defineModule } from '../../platform/module.js';
import { estimationRoutes } from './estimation.routes.js';
import { createEstimationService } from './estimation.service.js';

/** Estimation sheets (spec A 2.6, 4.4; DOMAIN.md §3), computed by the settlement calculator. */
export const estimationModule = defineModule({
  name: 'estimation',
  routes: ({ db, store }) => estimationRoutes(createEstimationService({ db, store })),
});

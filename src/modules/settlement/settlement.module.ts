import { defineModule } from '../../platform/module.js';
import type { RouteSpec } from '../../platform/http/routes.js';
import type { ErrcodeGroup } from '../../platform/errors.js';
import { settlementRoutes } from './settlement.routes.js';
import { createSettlementService } from './settlement.service.js';
import { SettlementError } from './settlement.errors.js';
import { estimationRoutes } from './estimation.routes.js';
import { createEstimationService } from './estimation.service.js';
import { EstimationError } from './estimation.errors.js';

/** Codes every route of one of the module's two route files can answer, before the route's own. */
const answering =
  (codes: Array<ErrcodeGroup | number>) =>
  (route: RouteSpec): RouteSpec => ({ ...route, errcodes: [...codes, ...(route.errcodes ?? [])] });

/**
 * Estimation sheets and the settlement orders made from them (spec A 2.6, A 4.4, B 2.3, B 4.3;
 * docs/domain.md §3): one module, since an estimation is a settlement computed ahead (the same
 * calculator, details and periods), with a route file for each.
 */
export const settlementModule = defineModule({
  name: 'settlement',
  routes: ({ db, store }) => [
    ...estimationRoutes(createEstimationService({ db, store })).map(
      answering([EstimationError, SettlementError.AMOUNT_TOO_LARGE]),
    ),
    ...settlementRoutes(createSettlementService({ db })).map(answering([SettlementError])),
  ],
});

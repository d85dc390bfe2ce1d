import { defineModule } from '../../platform/module.js';
import { settlementRoutes } from './settlement.routes.js';
import { createSettlementService } from './settlement.service.js';
import { SettlementError } from './settlement.errors.js';

/** Settlement orders and their status machine (spec B 2.3, 4.3; DOMAIN.md §3). */
export const settlementModule = defineModule({
  name: 'settlement',
  errcodes: [SettlementError],
  routes: ({ db }) => settlementRoutes(createSettlementService({ db })),
});

import { defineModule } from '../../platform/module.js';
import { checkRollupJob } from './check-rollup.js';
import { statisticsRoutes } from './statistics.routes.js';
import { createStatisticsService } from './statistics.service.js';

/** Statistics (spec B 2.1, 4.1; docs/domain.md §6): SQL aggregations over cards, holders and check-ins. */
export const statisticsModule = defineModule({
  name: 'statistics',
  routes: ({ db }) => statisticsRoutes(createStatisticsService({ db })),
  // A fold that has fallen behind (100 000 checks a transaction) may outlast a request's bound.
  jobs: ({ database }) => [checkRollupJob(database.unbounded)],
});

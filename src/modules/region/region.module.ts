import { defineModule } from '../../platform/module.js';
import { regionRoutes } from './region.routes.js';
import { createRegionService } from './region.service.js';

/** The region dictionary (spec A 4.5). */
export const regionModule = defineModule({
  name: 'region',
  routes: ({ db, cache }) => regionRoutes(createRegionService({ db, cache })),
});

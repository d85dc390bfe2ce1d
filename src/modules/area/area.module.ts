import { defineModule } from '../../platform/module.js';
import { createRegionService } from '../region/index.js';
import { areaRoutes } from './area.routes.js';
import { createAreaService } from './area.service.js';

/** Area lookups built on the region dictionary (spec A 4.8). */
export const areaModule = defineModule({
  name: 'area',
  routes: ({ db, cache }) => areaRoutes(createAreaService({ cache, regions: createRegionService({ db, cache }) })),
});

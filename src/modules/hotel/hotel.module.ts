import { defineModule } from '../../platform/module.js';
import { hotelRoutes } from './hotel.routes.js';
import { createHotelService } from './hotel.service.js';

/** Hotel orders (spec B 2.7, 4.7). */
export const hotelModule = defineModule({
  name: 'hotel',
  routes: ({ db }) => hotelRoutes(createHotelService({ db })),
});

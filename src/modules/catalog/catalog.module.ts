import { defineModule } from '../../platform/module.js';
import { skuRoutes } from './sku.routes.js';
import { createSkuService } from './sku.service.js';
import { spuRoutes } from './spu.routes.js';
import { createSpuService } from './spu.service.js';
import { MerchantError } from '../merchant/index.js';

/** The catalog (spec B 2.6, 4.6): resources (spu) and what is sold of them (sku, with entrances). */
export const catalogModule = defineModule({
  name: 'catalog',
  errcodes: [MerchantError],
  routes: ({ db }) => [...spuRoutes(createSpuService({ db })), ...skuRoutes(createSkuService({ db }))],
});

// The catalog module's front door: the only file other modules import (docs/architecture.md §4).
export { catalogModule } from './catalog.module.js';
export { SkuEntrance } from './sku.schemas.js';
export { insertEntrances, insertSku, softDeleteEntrance, softDeleteSku } from './sku.repository.js';
export { insertSpu, softDeleteSpu } from './spu.repository.js';

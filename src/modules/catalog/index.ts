// The catalog module's front door: the only file other modules import (docs/architecture.md §4).
export { catalogModule } from './catalog.module.js';
export { SkuEntrance } from './sku.schemas.js';

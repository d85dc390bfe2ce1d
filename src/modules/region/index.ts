// The region module's front door: the only file other modules import (docs/architecture.md §4).
export { regionModule } from './region.module.js';
export { countRegions, insertRegionsWithIds } from './region.repository.js';
export { createRegionService, type RegionService } from './region.service.js';
export { regionDictionaryRows } from './region-dictionary.js';

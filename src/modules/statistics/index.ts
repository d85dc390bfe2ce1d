// The statistics module's front door: the only file other modules import (docs/architecture.md §4).
export { statisticsModule } from './statistics.module.js';
export { foldNextChecks, markFoldedByCaller, unfoldRevokedCheck } from './check-rollup.repository.js';
export { STATISTICS_TRIGGERS, rebuildStatHolders } from './holder.repository.js';

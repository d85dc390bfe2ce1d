// The allocation module's front door: the only file other modules import (docs/architecture.md §4).
export { allocationModule } from './allocation.module.js';
export { largestRemainderSplit } from './split.js';

// The settlement module's front door: the only file other modules import (docs/architecture.md §4).
export { settlementModule } from './settlement.module.js';

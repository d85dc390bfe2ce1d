// The contract module's front door: the only file other modules import (docs/architecture.md §4).
export { contractModule } from './contract.module.js';

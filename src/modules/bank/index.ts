// The bank module's front door: the only file other modules import (docs/architecture.md §4).
export { bankModule } from './bank.module.js';

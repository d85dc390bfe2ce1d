// The sales module's front door: the only file other modules import (docs/architecture.md §4).
export { salesModule } from './sales.module.js';

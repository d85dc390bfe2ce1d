// The custom module's front door: the only file other modules import (docs/architecture.md §4).
export { customModule } from './custom.module.js';

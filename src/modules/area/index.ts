// The area module's front door: the only file other modules import (docs/architecture.md §4).
export { areaModule } from './area.module.js';

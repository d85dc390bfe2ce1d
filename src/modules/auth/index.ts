// The auth module's front door: the only file other modules import (docs/architecture.md §4).
export { authModule } from './auth.module.js';

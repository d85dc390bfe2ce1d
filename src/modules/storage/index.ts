// The storage module's front door: the only file other modules import (docs/architecture.md §4).
export { storageModule } from './storage.module.js';

// The checker module's front door: the only file other modules import (docs/architecture.md §4).
export { checkerModule } from './checker.module.js';
export { insertConfig, softDeleteConfig } from './checker-config.repository.js';

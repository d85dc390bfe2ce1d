// The shop module's front door: the only file other modules import (docs/architecture.md §4).
export { shopModule } from './shop.module.js';
export { insertShop } from './shop.repository.js';

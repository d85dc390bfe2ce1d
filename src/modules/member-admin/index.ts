// The member-admin module's front door: the only file other modules import (docs/architecture.md §4).
export { memberAdminModule } from './member-admin.module.js';

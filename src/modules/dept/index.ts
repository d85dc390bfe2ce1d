// The dept module's front door: the only file other modules import (docs/architecture.md §4).
export { deptModule } from './dept.module.js';
export { findDept, insertDept, softDeleteDept } from './dept.repository.js';
export { deleteShopDepts, insertTopDept } from './shop-dept.repository.js';

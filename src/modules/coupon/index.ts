// The coupon module's front door: the only file other modules import (docs/architecture.md §4).
export { couponModule } from './coupon.module.js';

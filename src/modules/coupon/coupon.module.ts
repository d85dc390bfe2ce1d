import { defineModule } from '../../platform/module.js';
import { couponRoutes } from './coupon.routes.js';
import { createCouponService } from './coupon.service.js';

/** Coupon templates (spec B 2.7, 4.7). */
export const couponModule = defineModule({
  name: 'coupon',
  routes: ({ db }) => couponRoutes(createCouponService({ db })),
});

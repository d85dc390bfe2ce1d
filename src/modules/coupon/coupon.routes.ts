import { authed } from '../../platform/http/context.js';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { PageInfo } from '../../platform/http/schemas.js';
import { CouponTemplatePageRequest, CouponTemplateResponse } from './coupon.schemas.js';
import type { CouponService } from './coupon.service.js';

/** Spec B 4.7; endpoints.tsv puts it on /manage-api. */
export function couponRoutes(svc: CouponService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/promotion/couponTemplate/queryPromotionCouponTemplatePage',
      channels: ['manage'],
      auth: { kinds: ['admin'] },
      permission: 'coupon:read',
      tags: ['coupon'],
      summary:
        'A page of coupon templates, newest first, with taken and used counts and whether the member of mobile (and channel) may take one',
      body: CouponTemplatePageRequest,
      response: PageInfo(CouponTemplateResponse),
      handler: (ctx, { body }) => svc.page(authed(ctx), body),
    }),
  ];
}

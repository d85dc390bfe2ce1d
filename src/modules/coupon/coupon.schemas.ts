import { Type, type Static } from 'typebox';
import { DateRange, Id, MobilePhone, Nullable, Opt, PageFields } from '../../platform/http/schemas.js';

const CouponType = Type.Integer({
  minimum: 1,
  maximum: 6,
  description:
    'business line: 1 general, 2 scenic tickets, 3 hotel rooms, 4 catering, 5 local products, 6 travel routes',
});
const TemplateStatus = Type.Integer({ minimum: 0, maximum: 1, description: '0 enabled, 1 disabled' });
const DiscountType = Type.Integer({ minimum: 1, maximum: 2, description: '1 amount off, 2 percent off' });
const TakeType = Type.Integer({
  minimum: 1,
  maximum: 3,
  description: '1 taken by the user, 2 issued by staff, 3 given to new users',
});
const ProductScope = Type.Integer({
  minimum: 1,
  maximum: 3,
  description: '1 all products, 2 listed products (spu ids), 3 listed categories',
});

/** Spec B 2.7: the filters of the coupon-template page. */
export const CouponTemplatePageRequest = Type.Object(
  {
    ...PageFields,
    merchantId: Opt(Id),
    shopId: Opt(Id),
    couponType: Opt(CouponType),
    name: Opt(Type.String({ maxLength: 64, description: 'found within the name' })),
    status: Opt(TemplateStatus),
    discountType: Opt(DiscountType),
    createTimeRange: Opt(DateRange),
    canTakeTypes: Opt(Type.Array(TakeType, { maxItems: 3, description: 'only templates of these take types' })),
    productScope: Opt(ProductScope),
    productScopeValue: Opt(
      Type.Integer({
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
        description: 'templates listing this product or category',
      }),
    ),
    goodsId: Opt(
      Type.Integer({
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
        description: 'templates usable for this resource (spu)',
      }),
    ),
    mobile: Opt(MobilePhone),
    channel: Opt(Type.Integer({ minimum: 1, maximum: 8, description: 'ChannelType the member takes coupons through' })),
  },
  { title: 'CouponTemplatePageRequest' },
);
export type CouponTemplatePageQuery = Static<typeof CouponTemplatePageRequest>;

const NInt = Nullable(Type.Integer());
const NText = Nullable(Type.String());

export const CouponTemplateResponse = Type.Object(
  {
    id: Type.Integer(),
    merchantId: NInt,
    shopId: NInt,
    couponType: Type.Integer(),
    name: Type.String(),
    description: NText,
    status: Type.Integer({ description: '0 enabled, 1 disabled' }),
    totalCount: Type.Integer({ description: 'coupons that may be taken in all; -1 unlimited' }),
    takeLimitCount: Type.Integer({ description: 'coupons one member may take; -1 unlimited' }),
    takeType: Type.Integer(),
    usePrice: Type.Integer({ description: 'cents an order must reach; 0 no threshold' }),
    productScope: Type.Integer(),
    productScopeValues: Type.Array(Type.Integer()),
    validityType: Type.Integer({ description: '1 fixed dates, 2 days after taking' }),
    validStartTime: NText,
    validEndTime: NText,
    fixedStartTerm: Nullable(Type.Integer({ description: 'validity starts this many days after taking' })),
    fixedEndTerm: Nullable(Type.Integer({ description: 'validity ends this many days after taking' })),
    discountType: Type.Integer(),
    discountPercent: Nullable(Type.Integer({ description: 'percent paid, 80 = 20% off' })),
    discountPrice: Nullable(Type.Integer({ description: 'cents off' })),
    discountLimitPrice: Nullable(Type.Integer({ description: 'cents: most a percent-off coupon takes off' })),
    takeCount: Type.Integer({ description: 'coupons taken' }),
    useCount: Type.Integer({ description: 'coupons used' }),
    creator: NText,
    createTime: Type.String(),
    updater: NText,
    updateTime: Type.String(),
    deleted: Type.Boolean(),
    canTake: Type.Boolean({ description: 'whether the member of the given mobile (and channel) may take one now' }),
  },
  { title: 'CouponTemplateResponse' },
);
export type CouponTemplate = Static<typeof CouponTemplateResponse>;

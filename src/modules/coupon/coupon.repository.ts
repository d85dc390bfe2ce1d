import { sql } from 'kysely';
import type { Scope } from '../../platform/auth/permissions.js';
import type { DateRange } from '../../platform/date-range.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import { scopeCondition } from '../../platform/db/scope.js';
import { containsPattern } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import type { CouponTemplatePageQuery } from './coupon.schemas.js';

export const ALL_PRODUCTS = 1;
export const LISTED_PRODUCTS = 2;
const USED = 2;

export interface TemplateRow {
  id: number;
  merchantId: number | null;
  shopId: number | null;
  couponType: number;
  name: string;
  description: string | null;
  status: number;
  totalCount: number;
  takeLimitCount: number;
  takeType: number;
  usePrice: number;
  productScope: number;
  productScopeValues: number[];
  validityType: number;
  validStartTime: Date | null;
  validEndTime: Date | null;
  fixedStartTerm: number | null;
  fixedEndTerm: number | null;
  discountType: number;
  discountPercent: number | null;
  discountPrice: number | null;
  discountLimitPrice: number | null;
  createdBy: number | null;
  createdAt: Date;
  updatedBy: number | null;
  updatedAt: Date;
  isDeleted: boolean;
  takeCount: number;
  useCount: number;
  /** coupons of this template the given mobile (through the given channel) took; 0 without a mobile */
  takenByMember: number;
}

export interface TemplateFilter extends Omit<CouponTemplatePageQuery, 'createTimeRange' | 'pageNum' | 'pageSize'> {
  createTime: DateRange | null;
}

function filtered(db: Executor, f: TemplateFilter, scope: Scope) {
  // Counted from the coupons themselves, so the totals cannot drift from what was taken and used.
  const taken = db
    .selectFrom('coupon as c')
    .select(sql<number>`count(*)`.as('n'))
    .where(sql<boolean>`c.template_id = t.id`)
    .where('c.is_deleted', '=', false);
  const used = taken.where('c.status', '=', USED);
  let mineQ = taken.where(sql<boolean>`false`);
  if (f.mobile) {
    mineQ = taken.where('c.mobile', '=', f.mobile);
    if (f.channel != null) mineQ = mineQ.where('c.channel', '=', f.channel);
  }
  let q = db
    .selectFrom('coupon_template as t')
    .selectAll('t')
    .select([taken.as('take_count'), used.as('use_count'), mineQ.as('taken_by_member')])
    .where('t.is_deleted', '=', false)
    .where(scopeCondition(scope, 't.merchant_id', 't.shop_id'));
  if (f.merchantId != null) q = q.where('t.merchant_id', '=', f.merchantId);
  if (f.shopId != null) q = q.where('t.shop_id', '=', f.shopId);
  if (f.couponType != null) q = q.where('t.coupon_type', '=', f.couponType);
  if (f.name?.trim()) q = q.where('t.name', 'ilike', containsPattern(f.name.trim()));
  if (f.status != null) q = q.where('t.status', '=', f.status);
  if (f.discountType != null) q = q.where('t.discount_type', '=', f.discountType);
  if (f.createTime) q = q.where('t.created_at', '>=', f.createTime.start).where('t.created_at', '<=', f.createTime.end);
  if (f.canTakeTypes?.length) q = q.where('t.take_type', 'in', f.canTakeTypes);
  if (f.productScope != null) q = q.where('t.product_scope', '=', f.productScope);
  if (f.productScopeValue != null) q = q.where(sql<boolean>`${f.productScopeValue} = any(t.product_scope_values)`);
  if (f.goodsId != null) {
    // Usable for the resource: a template for all products or one listing it, of the resource's merchant or of the platform.
    const goods = f.goodsId;
    q = q
      .where(
        sql<boolean>`(t.product_scope = ${ALL_PRODUCTS} or (t.product_scope = ${LISTED_PRODUCTS} and ${goods} = any(t.product_scope_values)))`,
      )
      .where(
        sql<boolean>`(t.merchant_id is null or t.merchant_id = (select s.merchant_id from spu s where s.id = ${goods}))`,
      );
  }
  return q.orderBy('t.id', 'desc');
}

type Row = Awaited<ReturnType<ReturnType<typeof filtered>['executeTakeFirstOrThrow']>>;

function toRow(r: Row): TemplateRow {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    shopId: r.shop_id,
    couponType: r.coupon_type,
    name: r.name,
    description: r.description,
    status: r.status,
    totalCount: r.total_count,
    takeLimitCount: r.take_limit_count,
    takeType: r.take_type,
    usePrice: r.use_price,
    productScope: r.product_scope,
    // bigint[] elements arrive as text from pg and as numbers from PGlite
    productScopeValues: r.product_scope_values.map(Number),
    validityType: r.validity_type,
    validStartTime: r.valid_start_time,
    validEndTime: r.valid_end_time,
    fixedStartTerm: r.fixed_start_term,
    fixedEndTerm: r.fixed_end_term,
    discountType: r.discount_type,
    discountPercent: r.discount_percent,
    discountPrice: r.discount_price,
    discountLimitPrice: r.discount_limit_price,
    createdBy: r.created_by,
    createdAt: r.created_at,
    updatedBy: r.updated_by,
    updatedAt: r.updated_at,
    isDeleted: r.is_deleted,
    takeCount: Number(r.take_count),
    useCount: Number(r.use_count),
    takenByMember: Number(r.taken_by_member),
  };
}

export function pageTemplates(
  db: Executor,
  f: TemplateFilter,
  scope: Scope,
  page: PageRequest,
): Promise<Page<TemplateRow>> {
  return paginate(db, filtered(db, f, scope), page, toRow);
}

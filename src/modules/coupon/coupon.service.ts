import { scopeOf } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import { parseDateRange } from '../../platform/date-range.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import { formatDateTime } from '../../platform/time.js';
import * as repo from './coupon.repository.js';
import type { CouponTemplate, CouponTemplatePageQuery } from './coupon.schemas.js';

const ENABLED = 0;
const TAKEN_BY_USER = 1;
const FIXED_DATES = 1;
const UNLIMITED = -1;

/**
 * Whether a member may take a coupon of the template now: it is enabled, members take it themselves
 * (not issued by staff, not the new-user gift), its fixed validity has not ended, some remain of the
 * total, and the member (when a mobile is given) took fewer than the per-member limit.
 */
export function canTake(t: repo.TemplateRow, now: Date, personal: boolean): boolean {
  if (t.status !== ENABLED || t.takeType !== TAKEN_BY_USER) return false;
  if (t.validityType === FIXED_DATES && t.validEndTime !== null && t.validEndTime.getTime() < now.getTime())
    return false;
  if (t.totalCount !== UNLIMITED && t.takeCount >= t.totalCount) return false;
  if (personal && t.takeLimitCount !== UNLIMITED && t.takenByMember >= t.takeLimitCount) return false;
  return true;
}

function toWire(t: repo.TemplateRow, now: Date, personal: boolean): CouponTemplate {
  return {
    id: t.id,
    merchantId: t.merchantId,
    shopId: t.shopId,
    couponType: t.couponType,
    name: t.name,
    description: t.description,
    status: t.status,
    totalCount: t.totalCount,
    takeLimitCount: t.takeLimitCount,
    takeType: t.takeType,
    usePrice: t.usePrice,
    productScope: t.productScope,
    productScopeValues: t.productScopeValues,
    validityType: t.validityType,
    validStartTime: formatDateTime(t.validStartTime),
    validEndTime: formatDateTime(t.validEndTime),
    fixedStartTerm: t.fixedStartTerm,
    fixedEndTerm: t.fixedEndTerm,
    discountType: t.discountType,
    discountPercent: t.discountPercent,
    discountPrice: t.discountPrice,
    discountLimitPrice: t.discountLimitPrice,
    takeCount: t.takeCount,
    useCount: t.useCount,
    creator: t.createdBy === null ? null : String(t.createdBy),
    createTime: formatDateTime(t.createdAt)!,
    updater: t.updatedBy === null ? null : String(t.updatedBy),
    updateTime: formatDateTime(t.updatedAt)!,
    deleted: t.isDeleted,
    canTake: canTake(t, now, personal),
  };
}

/** Coupon templates (spec B 2.7, 4.7): the page staff see, with what a given member could take. */
export function createCouponService(deps: { db: Db; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());
  return {
    async page(ctx: AuthedContext, q: CouponTemplatePageQuery): Promise<Page<CouponTemplate>> {
      const { createTimeRange, pageNum, pageSize, ...rest } = q;
      const filter: repo.TemplateFilter = { ...rest, createTime: parseDateRange('createTimeRange', createTimeRange) };
      const page = await repo.pageTemplates(db, filter, scopeOf(ctx.account), { pageNum, pageSize });
      const at = now();
      return { list: page.list.map((t) => toWire(t, at, Boolean(q.mobile))), total: page.total };
    },
  };
}

export type CouponService = ReturnType<typeof createCouponService>;

import { sql, type Selectable } from 'kysely';
import { codeText } from '../../platform/http/schemas.js';
import type { MemberTable } from '../../db/tables/member.js';
import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { listTemplate, paginate } from '../../platform/db/paginate.js';
import type { DateRange } from '../../platform/date-range.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { formatDateTime } from '../../platform/time.js';
import { countLivingMembers } from './member-tally.repository.js';
import type { MemberPageResponse, MemberResponse } from './member.schemas.js';

/** Card status (docs/domain.md §1): 1 unbound, 2 bound. */

// Every column but password_hash: a hash is never read for an answer, so it cannot leak into one.
export const MEMBER_COLUMNS = [
  'id',
  'open_id',
  'mobile',
  'status',
  'register_ip',
  'register_terminal',
  'login_ip',
  'login_date',
  'nickname',
  'avatar',
  'name',
  'sex',
  'area_id',
  'birthday',
  'mark',
  'point',
  'tag_ids',
  'level_id',
  'experience',
  'group_id',
  'channel',
  'third_id',
  'is_deleted',
  'created_at',
] as const;
export type MemberRow = Pick<Selectable<MemberTable>, (typeof MEMBER_COLUMNS)[number]>;

function toMember(r: MemberRow): MemberResponse {
  return {
    id: r.id,
    openId: r.open_id,
    mobile: r.mobile,
    status: r.status,
    registerIp: r.register_ip,
    registerTerminal: r.register_terminal,
    loginIp: r.login_ip,
    loginDate: formatDateTime(r.login_date),
    nickname: r.nickname,
    avatar: r.avatar,
    name: r.name,
    sex: r.sex,
    areaId: r.area_id,
    // A date column (YYYY-MM-DD text) in the wire's Date form.
    birthday: r.birthday ? `${r.birthday} 00:00:00` : null,
    mark: r.mark,
    point: r.point,
    tagIds: r.tag_ids,
    levelId: r.level_id,
    experience: r.experience,
    groupId: r.group_id,
  };
}

/**
 * A member as staff see it (spec A 2.4 MemberPageResponse): in the page and in getMember alike. The
 * fields are added to the member's fresh object: `{ ...toMember(r), … }` cost ~12 µs a row on Node 20
 * against ~0.5 µs (docs/adr/0079-objects-built-by-spreading-avoided-in-hot-code.md).
 */
export function toPageRow(r: MemberRow): MemberPageResponse {
  return Object.assign(toMember(r), {
    channel: codeText(r.channel),
    thirdId: r.third_id,
    password: null,
    isDeleted: r.is_deleted,
    createdTime: formatDateTime(r.created_at),
  });
}

/** The member, when it exists and is not deleted. */
export async function findMember(db: Executor, id: number): Promise<MemberResponse | null> {
  const r = await db
    .selectFrom('member')
    .select(MEMBER_COLUMNS)
    .where('id', '=', id)
    .where(sql<boolean>`not is_deleted`)
    .executeTakeFirst();
  return r ? toMember(r) : null;
}

export interface MemberPageFilter {
  /** digits the mobile starts with */
  mobile: string | null;
  created: DateRange | null;
  status: number | null;
  channel: number | null;
}

/** `%` and `_` never reach the pattern: the filter is digits only (schema), so a prefix LIKE is exact. */
const prefixPattern = (digits: string) => `${digits}%`;

/**
 * A page of members, newest first. Merchant and shop users see the members holding a card their
 * business sold (a living binding of a living card). Each filter has an index (migration 0010), and
 * the total counts only the filtered set (paginate); the platform's total by status and channel alone
 * is the tally's (migration 0029), not a count of every member.
 */
export function pageMembers(
  db: Executor,
  f: MemberPageFilter,
  scope: Scope,
  page: PageRequest,
): Promise<Page<MemberPageResponse>> {
  // The tally's pages (the platform's, by status and channel at most) are the busy ones, and their
  // plans are the same whatever the values (an index of each equality, in id order): prepared.
  return paginate(
    db,
    pageTemplate(shapeOf(f, scope))(db, pageValues(f, scope)),
    page,
    toPageRow,
    totalFromTally(f, scope) ? { count: () => countLivingMembers(db, f), prepared: 'member-page' } : {},
  );
}

/** Whether the page's total is the member tally's: the platform's, filtered by status and channel at most. */
export const totalFromTally = (f: MemberPageFilter, scope: Scope) =>
  scope.kind === 'platform' && !f.mobile && !f.created;

/** The ordered query behind the page (the benchmark EXPLAINs it). */
export function memberPageQuery(db: Executor, f: MemberPageFilter, scope: Scope) {
  return buildMemberPage(db, shapeOf(f, scope), pageValues(f, scope));
}

/** Which scope and filters a page has: its statement's text depends on them, not on their values. */
interface PageShape {
  scope: Scope['kind'];
  mobile: boolean;
  created: boolean;
  status: boolean;
  channel: boolean;
}

const PAGE_KEYS = ['merchantId', 'shopId', 'mobilePattern', 'createdStart', 'createdEnd', 'status', 'channel'] as const;
type PageValues = Record<(typeof PAGE_KEYS)[number], unknown>;

const shapeOf = (f: MemberPageFilter, scope: Scope): PageShape => ({
  scope: scope.kind,
  mobile: !!f.mobile,
  created: !!f.created,
  status: f.status != null,
  channel: f.channel != null,
});

const pageValues = (f: MemberPageFilter, scope: Scope): PageValues => ({
  merchantId: scope.kind === 'platform' ? null : scope.merchantId,
  shopId: scope.kind === 'shop' ? scope.shopId : null,
  mobilePattern: f.mobile ? prefixPattern(f.mobile) : null,
  createdStart: f.created?.start ?? null,
  createdEnd: f.created?.end ?? null,
  status: f.status,
  channel: f.channel,
});

/** The page's list is built and compiled once per shape (3 scopes × 16 sets of filters at most). */
const templateFor = (shape: PageShape) => listTemplate(PAGE_KEYS, (p, db) => buildMemberPage(db, shape, p));
const pageTemplates = new Map<string, ReturnType<typeof templateFor>>();

function pageTemplate(shape: PageShape) {
  const key = `${shape.scope}:${+shape.mobile}${+shape.created}${+shape.status}${+shape.channel}`;
  let template = pageTemplates.get(key);
  if (!template) pageTemplates.set(key, (template = templateFor(shape)));
  return template;
}

/** `p` holds the values, or the stand-ins of a template: they are only placed, never read. */
function buildMemberPage(db: Executor, shape: PageShape, p: PageValues) {
  let q = db
    .selectFrom('member')
    .select(MEMBER_COLUMNS)
    .where(sql<boolean>`not member.is_deleted`);
  if (shape.scope !== 'platform') {
    let holders = db
      .selectFrom('card_binding')
      .innerJoin('card', 'card.id', 'card_binding.card_id')
      .select('card_binding.member_id')
      .where(sql<boolean>`not card_binding.is_deleted`)
      .where(sql<boolean>`not card.is_deleted`)
      .where('card.merchant_id', '=', p.merchantId as number);
    if (shape.scope === 'shop') holders = holders.where('card.shop_id', '=', p.shopId as number);
    q = q.where('member.id', 'in', holders);
  }
  if (shape.mobile) q = q.where(sql<boolean>`member.mobile like ${p.mobilePattern}`);
  if (shape.created)
    q = q
      .where('member.created_at', '>=', p.createdStart as Date)
      .where('member.created_at', '<=', p.createdEnd as Date);
  if (shape.status) q = q.where('member.status', '=', p.status as number);
  if (shape.channel) q = q.where('member.channel', '=', p.channel as number);
  return q.orderBy('member.id', 'desc');
}

/** Another living member holding the mobile, if any. */
export async function findMobileHolder(db: Executor, mobile: string, exceptId: number): Promise<number | null> {
  const r = await db
    .selectFrom('member')
    .select('id')
    .where('mobile', '=', mobile)
    .where(sql<boolean>`not is_deleted`)
    .where('id', '<>', exceptId)
    .limit(1)
    .executeTakeFirst();
  return r?.id ?? null;
}

/** Sets the mobile of a living member; false when it is gone. */
export async function setMobile(db: Executor, memberId: number, mobile: string): Promise<boolean> {
  const r = await db
    .updateTable('member')
    .set({ mobile, updated_by: memberId, updated_at: new Date() })
    .where('id', '=', memberId)
    .where(sql<boolean>`not is_deleted`)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

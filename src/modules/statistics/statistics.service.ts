import { scopeOf, type Scope } from '../../platform/auth/permissions.js';
import { codeText } from '../../platform/http/schemas.js';
import { hundredths, percent } from './ratios.js';
import type { Db } from '../../platform/db/database.js';
import { parseDateRange, type DateRange } from '../../platform/date-range.js';
import { XlsxExport } from '../../platform/export/xlsx-export.js';
import type { Account, RequestContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import { formatDateTime } from '../../platform/time.js';
import { withAggregateMemory } from './aggregate-memory.js';
import * as cards from './card-stat.repository.js';
import * as portraits from './portrait.repository.js';
import * as profits from './profit.repository.js';
import * as err from './statistics.errors.js';
import type {
  CardActiveStat,
  CardActiveStatQuery,
  CardAreaQuery,
  CardIssueStat,
  CardIssueStatQuery,
  DatePairQuery,
  HomeCheckNum,
  HomeSalesAmount,
  Portrait,
  PortraitItem,
  ProfitRequest,
  ProfitResponse,
} from './statistics.schemas.js';

const GENDERS: Array<[code: number, label: string]> = [
  [1, '男'],
  [2, '女'],
];
const AGE_BANDS: Array<[code: string, label: string]> = [
  ['lt18', '18岁以下'],
  ['18-30', '18-30岁'],
  ['31-40', '31-40岁'],
  ['41-50', '41-50岁'],
  ['51-60', '51-60岁'],
  ['gt60', '60岁以上'],
];
const UNKNOWN = '未知';

/** A signed open app acts for the whole platform (as in the other open operations); staff within their scope. */
function scopeFor(account: Account): Scope {
  return account.kind === 'openApp' ? { kind: 'platform' } : scopeOf(account);
}

/** Statistics (spec B 2.1, 4.1; docs/domain.md §6): each figure one SQL aggregation, scoped by the session account. */
export function createStatisticsService(deps: { db: Db; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  /**
   * The date pair of the home figures: absent → this month so far. Any span is answered (the spec sets
   * none): both figures are one grouping per card model in SQL, and the check figure reads the range's
   * whole days from the roll-up (docs/adr/0074-statistics-answer-ranges-of-any-length.md).
   */
  function homeRange(q: DatePairQuery): DateRange {
    const given = parseDateRange('datePair', q.datePair);
    if (given) return given;
    const end = now();
    return { start: new Date(end.getFullYear(), end.getMonth(), 1), end };
  }

  /**
   * The seller filters of statCardIssue/statCardStat: a merchant user may name only its merchant and
   * its shops, a shop user only its shop (403 otherwise); an unknown merchant or shop is 404.
   */
  async function sellerFilter(scope: Scope, q: CardIssueStatQuery): Promise<cards.SellerFilter> {
    if (q.merchantId != null) {
      if (scope.kind !== 'platform' && q.merchantId !== scope.merchantId) throw err.otherMerchant();
      if (scope.kind === 'platform' && !(await cards.merchantExists(db, q.merchantId))) throw err.merchantNotFound();
    }
    if (q.shopId != null) {
      const shop = await cards.shopOwner(db, q.shopId);
      if (!shop) throw err.shopNotFound();
      if (scope.kind !== 'platform' && shop.merchantId !== scope.merchantId) throw err.otherMerchant();
      if (scope.kind === 'shop' && q.shopId !== scope.shopId) throw err.otherShop();
    }
    return {
      merchantId: q.merchantId,
      shopId: q.shopId,
      activeTime: parseDateRange('activeTimeRange', q.activeTimeRange),
    };
  }

  const serial = (rows: cards.ModelCount[]): CardIssueStat[] => rows.map((r, i) => ({ orderNo: i + 1, ...r }));

  async function issueRows(ctx: RequestContext, q: CardIssueStatQuery, inForce: boolean) {
    const scope = scopeFor(ctx.account!);
    const f = await sellerFilter(scope, q);
    if (inForce) f.inForceAt = now();
    return { scope, f };
  }

  return {
    /** statCardIssue: activated cards per card model (every status), in the seller scope. */
    async cardIssue(ctx: RequestContext, q: CardIssueStatQuery): Promise<CardIssueStat[]> {
      const { scope, f } = await issueRows(ctx, q, false);
      return serial(await cards.countByModel(db, scope, f));
    },

    /** statCardStat: the cards in force now (activated, not disabled, not expired) per card model. */
    async cardStat(ctx: RequestContext, q: CardIssueStatQuery): Promise<CardIssueStat[]> {
      const { scope, f } = await issueRows(ctx, q, true);
      return serial(await cards.countByModel(db, scope, f));
    },

    /** exportStatCardIssue: statCardIssue's rows as a streamed .xlsx with a total row. */
    async exportCardIssue(ctx: RequestContext, q: CardIssueStatQuery): Promise<XlsxExport<CardIssueStat>> {
      const { scope, f } = await issueRows(ctx, q, false);
      let serialNo = 0;
      return new XlsxExport<CardIssueStat>({
        fileName: `发卡统计-${formatDateTime(now())!.slice(0, 10)}.xlsx`,
        sheetName: '发卡统计',
        columns: [
          { header: '序号', kind: 'integer', value: (r) => r.orderNo },
          { header: '卡型ID', kind: 'integer', value: (r) => r.cardModelId },
          { header: '卡型名称', value: (r) => r.cardModelName, width: 24 },
          { header: '激活数量', kind: 'integer', value: (r) => r.activeNum, total: true },
        ],
        totalRow: '合计',
        batches: async (after, limit) => {
          const rows = await cards.countByModel(db, scope, f, after?.cardModelId ?? 0, limit);
          return rows.map((r) => ({ orderNo: ++serialNo, ...r }));
        },
      });
    },

    /**
     * statCardModel (open channel): activations per model × seller × sales account × period. A range of
     * any length is answered, as an absent one always was: the groups are formed in SQL (hashed within
     * withAggregateMemory's bound, spilling to disk beyond it) and only the page reaches Node.
     */
    cardModel(ctx: RequestContext, q: CardActiveStatQuery): Promise<Page<CardActiveStat>> {
      const scope = scopeFor(ctx.account!);
      const byMonth = q.activeTimeType === 2;
      const activeTime = parseDateRange('activeTimeRange', q.activeTimeRange);
      return withAggregateMemory(db, (trx) =>
        cards.pageActiveStat(
          trx,
          scope,
          {
            cardModelId: q.cardModelId,
            donation: q.donationFlag,
            byMonth,
            activeTime,
            businessName: q.businessName,
            activeByName: q.activeByName,
            now: now(),
          },
          q,
        ),
      );
    },

    /** statCardArea: gender, age band and city of the scope's bound holders. */
    async cardArea(ctx: RequestContext, q: CardAreaQuery): Promise<Portrait> {
      const scope = scopeFor(ctx.account!);
      const today = Number(formatDateTime(now())!.slice(0, 10).replace(/-/g, ''));
      const provinceId = q.provinceCode ? Number(q.provinceCode.slice(0, 2) + '0000') : null;
      const counts = await portraits.portrait(db, scope, { cardModelId: q.cardModelId, provinceId, today });

      const genderTotal = [...counts.gender.values()].reduce((a, b) => a + b, 0);
      const genderDistribution: PortraitItem[] = GENDERS.map(([code, label]) => ({
        label,
        code: String(code),
        count: counts.gender.get(code) ?? 0,
        rate: 0,
        type: 1,
      }));
      if (counts.gender.get(0))
        genderDistribution.push({ label: UNKNOWN, code: '0', count: counts.gender.get(0)!, rate: 0, type: 1 });
      for (const g of genderDistribution) g.rate = percent(g.count, genderTotal);

      const ageTotal = [...counts.age.values()].reduce((a, b) => a + b, 0);
      const ageDistribution: PortraitItem[] = AGE_BANDS.map(([code, label], i) => ({
        label,
        code,
        count: counts.age.get(i) ?? 0,
        rate: 0,
        type: 2,
      }));
      if (counts.age.get(-1))
        ageDistribution.push({ label: UNKNOWN, code: 'unknown', count: counts.age.get(-1)!, rate: 0, type: 2 });
      for (const a of ageDistribution) a.rate = percent(a.count, ageTotal);

      const cityTotal = counts.city.reduce((a, c) => a + c.count, 0);
      const cityDistributions: PortraitItem[] = counts.city
        .map((c) => ({
          label: c.cityId === 0 ? UNKNOWN : (c.name ?? String(c.cityId)),
          code: String(c.cityId),
          count: c.count,
          rate: percent(c.count, cityTotal),
          type: 3,
        }))
        .sort((a, b) => b.count - a.count || Number(a.code) - Number(b.code));
      return { genderDistribution, ageDistribution, cityDistributions };
    },

    /** statHomeCardCheckNum: entries per card model in the date pair (this month when absent). */
    cardCheckNum(ctx: RequestContext, q: DatePairQuery): Promise<HomeCheckNum[]> {
      return cards.checkNumByModel(db, scopeFor(ctx.account!), homeRange(q));
    },

    /** statHomeCardSalesAmount: activations and sales in cents per card model in the date pair. */
    cardSalesAmount(ctx: RequestContext, q: DatePairQuery): Promise<HomeSalesAmount[]> {
      return cards.salesByModel(db, scopeFor(ctx.account!), homeRange(q));
    },

    /** profitAccounting/cardModel: the cohort's activations, uses, bindings and entries per resource. */
    async profit(ctx: RequestContext, q: ProfitRequest): Promise<ProfitResponse> {
      const scope = scopeFor(ctx.account!);
      const activeTime = parseDateRange('activeTimeRange', q.activeTimeRange);
      let modelName: string | null = null;
      if (q.cardModelId != null) {
        const model = await profits.findModel(db, q.cardModelId, scope);
        if (!model) throw err.cardModelNotFound();
        if (!model.visible) throw err.modelNotVisible();
        modelName = model.name;
      }
      const f: profits.CohortFilter = { cardModelId: q.cardModelId, activeTime };
      const [cardFig, uses, bindings, resources] = await Promise.all([
        profits.cardFigures(db, scope, f),
        withAggregateMemory(db, (trx) => profits.useFigures(trx, scope, f)),
        withAggregateMemory(db, (trx) => profits.bindingFigures(trx, scope, f), 'ordered'),
        profits.ruleResources(db, scope, q.cardModelId ?? null),
      ]);
      const b = uses.buckets;
      return {
        cardModelId: q.cardModelId ?? null,
        cardModelName: modelName,
        totalActiveCardNum: cardFig.active,
        cardNoNum: cardFig.cardNoNum,
        totalCheckNum: uses.entries,
        resourceList: resources.map((r) => ({ ...r, checkNum: uses.byResource.get(r.resourceId) ?? 0 })),
        oneTimes: b[1],
        twoTimes: b[2],
        threeTimes: b[3],
        fourTimes: b[4],
        fiveTimes: b[5],
        sixTimes: b[6],
        sixPlusTimes: b[7],
        cardBindCardNoCount: bindings.cards,
        cardBindIdCount: bindings.ids,
        usedPercent: percent(uses.usedCards, cardFig.active),
        averageUsedTimes: hundredths(uses.entries, cardFig.active),
        totalNum: cardFig.active,
        donationNum: cardFig.donated,
        youZhengNum: cardFig.channels.find((c) => c.channel === BANK_CHANNEL)?.activeNum ?? 0,
        channelList: cardFig.channels.map((c) => ({ channel: codeText(c.channel), activeNum: c.activeNum })),
      };
    },
  };
}

/** ChannelType 6: bank (the Postal Savings Bank channel, 邮政, of the Java service's youZhengNum). */
const BANK_CHANNEL = 6;

export type StatisticsService = ReturnType<typeof createStatisticsService>;

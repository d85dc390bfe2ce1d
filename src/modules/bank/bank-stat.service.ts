import { hasPermission } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import { parseDateRange } from '../../platform/date-range.js';
import { XlsxExport } from '../../platform/export/xlsx-export.js';
import type { Account, AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import { maskIdNumber } from '../../platform/id-number.js';
import { formatDateTime } from '../../platform/time.js';
import type {
  ActivationDetailItem,
  ActivationDetailListRequest,
  BankStatRequest,
  BankStatResponse,
  ExportBankStatDetailRequest,
  OpenapiChannelOperator,
} from './bank.schemas.js';
import type { BankSessions } from './bank-session.js';
import * as repo from './bank-stat.repository.js';

/** Whoever holds it reads ID numbers whole in the activation list and the export; everyone else masked. */
export const PLAIN_ID_PERMISSION = 'bank:export:plain';

const STATUS_DESC: Record<number, string> = { 0: '确认中', 1: '已绑定' };
const ID_TYPE_NAMES: Record<number, string> = {
  1: '身份证',
  2: '护照',
  3: '港澳居民来往内地通行证',
  4: '台湾居民来往大陆通行证',
  5: '驾驶证',
  6: '居住证',
  7: '军官证',
  8: '学生证',
  9: '出生证明',
};

const startOfToday = () => {
  const now = new Date();
  return new Date(now.getFullYear(), now.getMonth(), now.getDate());
};

const idShown = (account: Account) =>
  hasPermission(account, PLAIN_ID_PERMISSION) ? (id: string) => id : (id: string) => maskIdNumber(id) ?? '';

/** bankOperatorList, bankStat, getActivationDetailList and exportBankStatDetail (spec B 4.4 rules 5–6). */
export function createBankStatService(deps: { db: Db; sessions: BankSessions }) {
  const { db, sessions } = deps;

  return {
    async operators(ctx: AuthedContext): Promise<OpenapiChannelOperator[]> {
      return repo.listOperators(db, await sessions.of(ctx));
    },

    async stat(ctx: AuthedContext, q: BankStatRequest): Promise<Page<BankStatResponse>> {
      const relations = await sessions.of(ctx);
      const activeTime = parseDateRange('activeTimeRange', q.activeTimeRange);
      return repo.pageStat(db, relations, { ...q, activeTime }, startOfToday(), q);
    },

    async details(ctx: AuthedContext, q: ActivationDetailListRequest): Promise<Page<ActivationDetailItem>> {
      const relations = await sessions.of(ctx);
      const shown = idShown(ctx.account);
      const page = await repo.pageActivations(db, relations, q, q);
      return {
        total: page.total,
        list: page.list.map((r) => ({
          id: r.id,
          activeTime: formatDateTime(r.activeTime),
          cardNumber: r.cardNumber,
          userName: r.userName,
          userPhone: r.userPhone,
          orderNo: r.orderNo,
          userIdno: shown(r.userIdno),
          activeStatus: r.activeStatus,
          statusDesc: STATUS_DESC[r.activeStatus] ?? String(r.activeStatus),
        })),
      };
    },

    async export(ctx: AuthedContext, q: ExportBankStatDetailRequest): Promise<XlsxExport<repo.ExportRow>> {
      const relations = await sessions.of(ctx);
      const filter = { ...q, activeTime: parseDateRange('activeTimeRange', q.activeTimeRange) };
      const shown = idShown(ctx.account);
      return new XlsxExport<repo.ExportRow>({
        fileName: `银行渠道激活明细-${formatDateTime(new Date())!.slice(0, 10)}.xlsx`,
        sheetName: '激活明细',
        columns: [
          { header: '操作员编号', kind: 'integer', value: (r) => r.operatorId },
          { header: '操作员', value: (r) => r.operatorName, width: 16 },
          { header: '订单号', value: (r) => r.orderNo, width: 24 },
          { header: '卡号', value: (r) => r.cardNumber, width: 20 },
          { header: '卡种', value: (r) => r.cardModelName, width: 14 },
          { header: '姓名', value: (r) => r.userName, width: 12 },
          { header: '手机号', value: (r) => r.userPhone, width: 14 },
          { header: '证件类型', value: (r) => ID_TYPE_NAMES[r.userIdType] ?? String(r.userIdType), width: 12 },
          { header: '证件号码', value: (r) => shown(r.userIdno), width: 22 },
          { header: '状态', value: (r) => STATUS_DESC[r.activeStatus] ?? String(r.activeStatus) },
          { header: '激活时间', kind: 'datetime', value: (r) => r.activeTime, width: 20 },
        ],
        batches: (after, limit) => repo.exportBatch(db, relations, filter, after?.id ?? 0, limit),
      });
    },
  };
}

export type BankStatService = ReturnType<typeof createBankStatService>;

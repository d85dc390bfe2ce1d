import type { Executor } from '../../platform/db/executor.js';
import { insertCardModel, insertPrice, insertRule } from '../../modules/card/index.js';
import { insertMerchant } from '../../modules/merchant/index.js';
import { insertChecker, replaceRelations } from '../../modules/verifier/index.js';
import type { Cell, TableRows } from './rows.js';

/**
 * The demo records of tables the administration modules own (merchants, verifiers and where they
 * check, card models with their price history, rules and price periods) are written through those
 * modules' repositories, the same functions the operations use, so the demo data cannot drift from
 * what the service makes. The generator plans their ids beforehand (the check-in stream needs them);
 * the identity columns hand out the same ids in the same order, and every id is checked against the
 * plan. The bulk tables (cards, bindings, members, check-ins) stay on the generator's fast path.
 */
export const REPOSITORY_TABLES = new Set([
  'merchant',
  'checker',
  'checker_relation',
  'card_model',
  'card_model_resource_rule',
  'card_model_resource_price',
]);

type Row = Record<string, Cell>;

const num = (v: Cell): number => Number(v);
const numOrNull = (v: Cell): number | null => (v === null || v === undefined ? null : Number(v));
const text = (v: Cell): string => String(v);
const textOrNull = (v: Cell): string | null => (v === null || v === undefined ? null : String(v));

function same(table: string, planned: Cell, made: number): void {
  if (Number(planned) !== made)
    throw new Error(
      `demo ${table} id ${made} is not the planned ${planned}: the identity sequence moved while the generator ran`,
    );
}

/**
 * Writes one table's rows through its repository; answers the number of rows. `validFrom` starts the
 * card models' price history (the first day of the demo's span, so every sale falls inside it).
 */
export async function writeThroughRepositories(exec: Executor, t: TableRows, validFrom: Date): Promise<number> {
  const rows = t.objects as Row[] | undefined;
  if (!rows) throw new Error(`demo table ${t.table} has no row objects to write through its repository`);
  switch (t.table) {
    case 'merchant':
      for (const r of rows) {
        same(
          t.table,
          r.id,
          await insertMerchant(
            exec,
            {
              name: text(r.name),
              merchantType: num(r.merchant_type),
              contactName: textOrNull(r.contact_name),
              contactPhone: textOrNull(r.contact_phone),
              address: textOrNull(r.address),
              remark: textOrNull(r.remark),
            },
            null,
          ),
        );
      }
      break;
    case 'checker':
      for (const r of rows) {
        same(
          t.table,
          r.id,
          await insertChecker(
            exec,
            {
              mobile: text(r.mobile),
              name: text(r.name),
              passwordHash: text(r.password_hash),
              merchantId: num(r.merchant_id),
              shopId: numOrNull(r.shop_id),
              sskFlag: r.ssk_flag === true,
            },
            null,
          ),
        );
      }
      break;
    case 'checker_relation': {
      // One replacement per verifier, its relations in planned order.
      for (let i = 0; i < rows.length;) {
        const checkerId = num(rows[i].checker_id);
        let j = i;
        while (j < rows.length && num(rows[j].checker_id) === checkerId) j++;
        const group = rows.slice(i, j);
        const ids = await replaceRelations(
          exec,
          checkerId,
          group.map((r) => ({
            skuId: num(r.sku_id),
            entranceId: numOrNull(r.entrance_id),
            merchantId: num(r.merchant_id),
            shopId: numOrNull(r.shop_id),
          })),
          null,
        );
        group.forEach((r, k) => same(t.table, r.id, ids[k]));
        i = j;
      }
      break;
    }
    case 'card_model':
      for (const r of rows) {
        same(
          t.table,
          r.id,
          await insertCardModel(
            exec,
            {
              name: text(r.name),
              price: num(r.price),
              validityMonths: num(r.validity_months),
              allocationEnabled: r.allocation_enabled === true,
              skuId: numOrNull(r.sku_id),
              merchantId: numOrNull(r.merchant_id),
              remark: null,
            },
            null,
            validFrom,
          ),
        );
      }
      break;
    case 'card_model_resource_rule':
      for (const r of rows) {
        same(
          t.table,
          r.id,
          await insertRule(
            exec,
            num(r.card_model_id),
            num(r.resource_id),
            {
              settlementWay: num(r.settlement_way),
              buyPrice: numOrNull(r.buy_price),
              settlementFactor: num(r.settlement_factor),
              buyoutAmount: numOrNull(r.buyout_amount),
              sharePercent: numOrNull(r.share_percent),
              dailyCheckLimit: num(r.daily_check_limit),
            },
            null,
          ),
        );
      }
      break;
    case 'card_model_resource_price':
      for (const r of rows) {
        same(
          t.table,
          r.id,
          await insertPrice(
            exec,
            num(r.rule_id),
            {
              startDate: text(r.start_date),
              endDate: text(r.end_date),
              price: num(r.price),
              settlementFactor: num(r.settlement_factor),
            },
            null,
          ),
        );
      }
      break;
    default:
      throw new Error(`demo table ${t.table} has no repository to write through`);
  }
  return rows.length;
}

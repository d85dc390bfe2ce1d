import type { Executor } from '../../platform/db/executor.js';
import type { ModelPlan } from './card-models.js';
import { cardNumber, type IdAllocator } from './ids.js';
import type { Organisation } from './organisation.js';
import { fromObjects, isoTime, type TableRows } from './rows.js';

/**
 * The bank channel of the demo (docs/domain.md §5): the bank merchant of organisation.ts runs one channel
 * that activates a card kind, three operators with quotas, a manager and one teller per operator
 * (they log in with mobile, password and an SMS code), and a pool of unactivated cards.
 */

/** Bank logins: the manager sees every operator and exports ID numbers whole; the tellers activate. */
export const DEMO_BANK_MANAGER_MOBILE = '13900000301';
export const DEMO_BANK_TELLER_MOBILE = '13900000302';

/** Tables written here, for the generator's foreign-key check after a trigger-less load. */
export const BANK_DEMO_TABLES = ['channel_business', 'channel_info', 'openapi_channel_operator', 'bank_user'] as const;

const BANK_CHANNEL = 6;
/** Which of the demo card kinds the bank activates (惠民年卡). */
const BANK_MODEL_INDEX = 1;
const POOL_CARDS = 200;
const OPERATORS = [
  { operatorId: 8001, name: '城商行营业部', total: 500, day: 50 },
  { operatorId: 8002, name: '城商行西湖支行', total: 300, day: 30 },
  { operatorId: 8003, name: '城商行滨江支行', total: 100, day: 10 },
];

export interface BankDemoContext {
  org: Organisation;
  models: ModelPlan[];
  ids: IdAllocator;
  passwordHash: string;
  /** card serials already used by the sold cards (card numbers continue after them) */
  soldCards: number;
  now: Date;
}

/**
 * Writes the channel, operators and bank staff (ids from their own identities: the generator does
 * not number these tables) and answers the pool cards, numbered by the generator like every card.
 */
export async function writeBankDemo(exec: Executor, ctx: BankDemoContext): Promise<TableRows[]> {
  const { org } = ctx;
  const model = ctx.models[BANK_MODEL_INDEX];
  const business = await exec
    .insertInto('channel_business')
    .values({
      name: '城市商业银行信用卡中心',
      merchant_id: org.bank.merchantId,
      shop_id: org.bank.shopId,
      channel_type: BANK_CHANNEL,
      contact_name: '渠道经理',
      contact_phone: '0571-96500000',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const channel = await exec
    .insertInto('channel_info')
    .values({
      channel_business_id: business.id,
      name: `信用卡持卡人专享${model.name}`,
      card_model_id: model.id,
      merchant_id: org.bank.merchantId,
      shop_id: org.bank.shopId,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const operators = await exec
    .insertInto('openapi_channel_operator')
    .values(
      OPERATORS.map((o) => ({
        channel_info_id: channel.id,
        operator_id: o.operatorId,
        operator_name: o.name,
        total_card_num: o.total,
        day_card_num: o.day,
        add_date: ctx.now,
        merchant_id: org.bank.merchantId,
        shop_id: org.bank.shopId,
      })),
    )
    .returning('id')
    .execute();
  await exec
    .insertInto('bank_user')
    .values(
      [
        { mobile: DEMO_BANK_MANAGER_MOBILE, name: '渠道经理', operator_id: null, permissions: ['bank:export:plain'] },
        ...operators.map((o, i) => ({
          mobile: `1390000030${i + 2}`,
          name: `${OPERATORS[i].name}柜员`,
          operator_id: o.id,
          permissions: [],
        })),
      ].map((u) => ({ ...u, password_hash: ctx.passwordHash, channel_business_id: business.id })),
    )
    .execute();

  const first = ctx.ids.reserve('card', POOL_CARDS);
  const created = isoTime(ctx.now.getTime());
  const pool = Array.from({ length: POOL_CARDS }, (_, k) => ({
    id: first + k,
    card_number: cardNumber(BANK_MODEL_INDEX, ctx.soldCards + 1 + k),
    card_model_id: model.id,
    status: 1,
    medium: 1,
    channel: BANK_CHANNEL,
    merchant_id: org.bank.merchantId,
    shop_id: org.bank.shopId,
    is_donation: false,
    created_at: created,
  }));
  return [fromObjects('card', pool)];
}

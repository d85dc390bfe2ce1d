import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { hashPassword } from '../../src/platform/auth/password.js';
import type { Executor } from '../../src/platform/db/executor.js';
import { createLogSmsSender } from '../../src/platform/sms/log-sender.js';
import { createSmsNotifier } from '../../src/platform/sms/notify.js';
import { createSmsCodes } from '../../src/platform/sms/sms-codes.js';
import type { SmsServices } from '../../src/platform/sms/index.js';
import { openStore, type Store } from '../../src/platform/store/index.js';
import { loadBankAccount } from '../../src/modules/bank/bank-user.repository.js';
import { createCardModel, createMerchant, createShop, uniq } from '../helpers/factories.js';
import { issueFor } from '../helpers/staff.js';
import type { TestApp } from '../helpers/test-app.js';
import { testStorePrefix } from '../helpers/store-prefix.js';

/** Bank-channel test data: a bank with a channel, operators with quotas, bank staff and a card pool. */

export const P = '/manage-api/bank';
export const BANK_PASSWORD = 'Bank@Pass2026';
const BANK_CHANNEL_TYPE = 6;

let serial = 0;
/** Mainland mobiles no other test of the run uses (the bank tests text them and count activations by them). */
export function newPhone(): string {
  serial += 1;
  const n = (randomBytes(4).readUInt32BE(0) % 10_000_000) * 100 + (serial % 100);
  return `15${String(n).padStart(9, '0')}`;
}

const WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
/** A valid 18-character ID card number (its check character computed), unique within the run. */
export function newIdNumber(): string {
  serial += 1;
  const first17 = `330106${1950 + (Math.floor(serial / 1000) % 50)}0101${String(serial % 1000).padStart(3, '0')}`;
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(first17[i]) * WEIGHTS[i];
  return first17 + '10X98765432'[sum % 11];
}

export interface Recorder {
  store: Store;
  sms: SmsServices;
  sender: ReturnType<typeof createLogSmsSender>;
  /** the latest code texted to the phone */
  codeFor(phone: string): string;
  /** moves the SMS codes' clock on (past the 60 s resend gap, say) instead of sleeping */
  advance(seconds: number): void;
}

/** A store of the test's own and SMS services whose texts the test can read (the log provider's outbox). */
export async function recordingSms(): Promise<Recorder> {
  const store = await openStore(process.env.REDIS_URL || null, testStorePrefix('bank'));
  const sender = createLogSmsSender({ info() {} });
  let offsetMs = 0;
  const now = () => Date.now() + offsetMs;
  const sms: SmsServices = {
    sender,
    codes: createSmsCodes({ store, sender, bypassCode: null, now }),
    notify: createSmsNotifier(sender, { warn() {} }),
  };
  return {
    store,
    sms,
    sender,
    advance(seconds) {
      offsetMs += seconds * 1000;
    },
    codeFor(phone) {
      const sent = sender.lastTo(phone);
      if (!sent || sent.template !== 'verifyCode') throw new Error(`no code was texted to ${phone}`);
      return sent.params.code;
    },
  };
}

export interface BankChannel {
  businessId: number;
  merchantId: number;
  shopId: number;
  channelInfoId: number;
  cardModelId: number;
  /** operator rows: id (row) and operatorId (the bank's number) */
  operators: Array<{ id: number; operatorId: number; name: string }>;
}

/** A bank with one channel, its operators (quotas as given) and `pool` cards in the channel's pool. */
export async function createBankChannel(
  db: Executor,
  opts: {
    operators?: Array<{ total: number; day: number; name?: string }>;
    pool?: number;
    merchantId?: number;
    businessId?: number;
  } = {},
): Promise<BankChannel> {
  const merchantId = opts.merchantId ?? (await createMerchant(db, { merchant_type: 3 }));
  const shopId = await createShop(db, { merchant_id: merchantId });
  const businessId =
    opts.businessId ??
    (
      await db
        .insertInto('channel_business')
        .values({ name: `Bank ${uniq()}`, merchant_id: merchantId, shop_id: shopId, channel_type: BANK_CHANNEL_TYPE })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  const cardModelId = await createCardModel(db, { name: `Bank card ${uniq()}`, price: 9800, validity_months: 12 });
  const channelInfoId = (
    await db
      .insertInto('channel_info')
      .values({
        channel_business_id: businessId,
        name: `Credit card offer ${uniq()}`,
        card_model_id: cardModelId,
        merchant_id: merchantId,
        shop_id: shopId,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;
  const operators: BankChannel['operators'] = [];
  for (const [i, o] of (opts.operators ?? [{ total: 100, day: 100 }]).entries()) {
    const operatorId = 1000 + i;
    const name = o.name ?? `Branch ${i + 1} ${uniq()}`.slice(0, 64);
    const r = await db
      .insertInto('openapi_channel_operator')
      .values({
        channel_info_id: channelInfoId,
        operator_id: operatorId,
        operator_name: name,
        total_card_num: o.total,
        day_card_num: o.day,
        merchant_id: merchantId,
        shop_id: shopId,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    operators.push({ id: r.id, operatorId, name });
  }
  const channel = { businessId, merchantId, shopId, channelInfoId, cardModelId, operators };
  await addPoolCards(db, channel, opts.pool ?? 20);
  return channel;
}

/** Unactivated cards of the channel's kind, issued to the bank: the pool activations take from. */
export async function addPoolCards(
  db: Executor,
  c: Pick<BankChannel, 'merchantId' | 'shopId' | 'cardModelId'>,
  count: number,
): Promise<number[]> {
  if (count === 0) return [];
  const rows = Array.from({ length: count }, () => ({
    card_number: `P${uniq()}`.slice(0, 32),
    card_model_id: c.cardModelId,
    status: 1,
    medium: 1,
    channel: BANK_CHANNEL_TYPE,
    merchant_id: c.merchantId,
    shop_id: c.shopId,
  }));
  const r = await db.insertInto('card').values(rows).returning('id').execute();
  return r.map((x) => x.id);
}

export interface BankStaff {
  id: number;
  mobile: string;
  password: string;
}

/** A bank user: an operator's when `operatorRowId` is given, else a manager of the whole bank. */
export async function createBankUser(
  db: Executor,
  o: { businessId: number; operatorRowId?: number | null; permissions?: string[]; status?: number; mobile?: string },
): Promise<BankStaff> {
  const mobile = o.mobile ?? newPhone();
  const r = await db
    .insertInto('bank_user')
    .values({
      mobile,
      password_hash: await hashPassword(BANK_PASSWORD),
      name: `Bank staff ${mobile.slice(-4)}`,
      channel_business_id: o.businessId,
      operator_id: o.operatorRowId ?? null,
      permissions: o.permissions ?? [],
      status: o.status ?? 1,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: r.id, mobile, password: BANK_PASSWORD };
}

/** A live bank session, issued as bankLogin issues it (its relations are loaded on first use). */
export async function bankToken(t: TestApp, user: BankStaff): Promise<string> {
  const account = await loadBankAccount(t.db, user.id);
  if (!account) throw new Error(`bank user ${user.id} cannot log in`);
  return (await issueFor(t, account, 'manage')).accessToken;
}

/** Requests a code through the API and answers what was texted. */
export async function requestCode(
  t: TestApp,
  rec: Recorder,
  phone: string,
  purpose: 'login' | 'user-login' | 'activate',
  token?: string,
): Promise<string> {
  const res = await t.post(`${P}/sendSmsCode`, { phone, purpose }, token);
  expect(res.body, JSON.stringify(res.body)).toEqual({ errcode: 0, errmsg: 'success', data: { expiresInS: 300 } });
  return rec.codeFor(phone);
}

export interface PersonInput {
  userName: string;
  phone: string;
  userIdno: string;
  userIdType?: number;
}

export const newPerson = (over: Partial<PersonInput> = {}): PersonInput => ({
  userName: `客户${serial}`,
  phone: newPhone(),
  userIdno: newIdNumber(),
  ...over,
});

/** Requests the activation code for the person and activates; answers the envelope's body. */
export async function activate(t: TestApp, rec: Recorder, token: string, person: PersonInput = newPerson()) {
  const verifyCode = await requestCode(t, rec, person.phone, 'activate', token);
  const res = await t.post(`${P}/activateBankCard`, { ...person, verifyCode }, token);
  return { res, person, verifyCode };
}

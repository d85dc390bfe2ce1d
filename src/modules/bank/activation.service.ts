import { findOrCreateMemberByMobile, MOBILE_LOCK } from '../member/index.js';
import { activatePoolCard, bindActivatedCard, takePoolCard } from '../card/index.js';
import type { Db } from '../../platform/db/database.js';
import { isUniqueViolation } from '../../platform/db/pg-errors.js';
import { advisoryLock, inTransaction, type Trx } from '../../platform/db/transaction.js';
import { badRequest } from '../../platform/errors.js';
import type { AuthedContext } from '../../platform/http/context.js';
import { IdType, isValidIdCardNumber } from '../../platform/id-number.js';
import { recordOperation } from '../../platform/oplog/oplog.js';
import type { SmsServices } from '../../platform/sms/index.js';
import { formatDateTime } from '../../platform/time.js';
import {
  alreadyActivated,
  cardPoolEmpty,
  channelDisabled,
  codeRefusal,
  merchantDisabled,
  notAnOperator,
  openapiOk,
  quotaExhausted,
  type OpenapiRefusal,
} from './bank.errors.js';
import type { ActivationData, BankCardActivateRequest, OpenapiAnswer } from './bank.schemas.js';
import type { BankSessions } from './bank-session.js';
import * as repo from './activation.repository.js';
import { normaliseIdNumber } from '../../platform/id-document.js';

/** The service-time-zone midnight that starts `at`'s day (process TZ is the service zone). */
const startOfDay = (at: Date) => new Date(at.getFullYear(), at.getMonth(), at.getDate());

/** Spacing and punctuation people type inside a document number; none is part of the number. */
const SEPARATORS = /[\s\-‐‑‒–—―−.·•・_/\\()]/gu;

/**
 * The document number as stored and compared: full-width forms folded (NFKC), upper case, separators
 * dropped. "G24-463517", "g24463517" and "Ｇ２４４６３５１７" are one number; null when anything but
 * letters and digits is left.
 */
export function idNumberKey(idNo: string): string | null {
  const key = normaliseIdNumber(idNo).replace(SEPARATORS, '');
  return /^[A-Z0-9]{1,32}$/.test(key) ? key : null;
}

/** Trimmed, non-blank, the number in its stored form (idNumberKey), an ID card number with its check character; 400 naming the field otherwise. */
export function personOf(input: BankCardActivateRequest): repo.Person {
  const name = input.userName.trim();
  if (!name) throw badRequest('userName is invalid: must not be blank');
  const idType = input.userIdType ?? IdType.ID_CARD;
  if (!input.userIdno.trim()) throw badRequest('userIdno is invalid: must not be blank');
  const idNo = idNumberKey(input.userIdno);
  if (idNo === null)
    throw badRequest(
      'userIdno is invalid: must hold letters and digits only (spaces, hyphens, dots and brackets are ignored)',
    );
  if (idType === IdType.ID_CARD && !isValidIdCardNumber(idNo)) {
    throw badRequest('userIdno is invalid: not an 18-character ID card number with a right check character');
  }
  return { name, phone: input.phone, idType, idNo };
}

type Outcome = { ok: true; data: ActivationData } | { ok: false; refusal: OpenapiRefusal };

/**
 * activateBankCard (spec B 4.4 rules 1–2, docs/domain.md §5): the SMS code, then one transaction under
 * the operator's lock: quotas (503), duplicates in the channel (504), the member, the order and the
 * activation record, a card from the channel's pool bound to the person, the order log. The code is
 * consumed and the notice texted only after commit.
 */
export function createActivationService(deps: { db: Db; sms: SmsServices; sessions: BankSessions }) {
  const { db, sms, sessions } = deps;

  async function refused(trx: Trx | Db, ctx: AuthedContext, refusal: OpenapiRefusal): Promise<Outcome> {
    await recordOperation(trx, ctx, null, { success: false, errcode: refusal.code });
    return { ok: false, refusal };
  }

  async function activateIn(
    trx: Trx,
    ctx: AuthedContext,
    operatorRowId: number,
    person: repo.Person,
  ): Promise<Outcome> {
    // Held to the end of the transaction: the quota count and the new record are one step for every
    // instance; on PGlite transactions already run one at a time.
    await advisoryLock(trx, 'bank-operator-quota', operatorRowId);
    const channel = await repo.findOperatorChannel(trx, operatorRowId);
    if (!channel?.enabled) throw channelDisabled();
    // Nothing new under a disabled merchant (its bank users' sessions end with the disable, but one
    // may be in flight).
    if (!(await repo.merchantEnabled(trx, channel.merchantId))) throw merchantDisabled();

    const at = new Date();
    const used = await repo.quotaUsage(trx, operatorRowId, startOfDay(at));
    if (used.total >= channel.totalCardNum)
      return refused(trx, ctx, quotaExhausted('total', used.total, channel.totalCardNum));
    if (used.today >= channel.dayCardNum)
      return refused(trx, ctx, quotaExhausted('today', used.today, channel.dayCardNum));
    const taken = await repo.findActivated(trx, channel.channelInfoId, person);
    if (taken) return refused(trx, ctx, alreadyActivated(taken));

    const bankUserId = ctx.account.id;
    // One member per phone even when two channels activate it at once.
    // the member module's lock: a phone bound by a member meanwhile must not get a second member
    await advisoryLock(trx, MOBILE_LOCK, person.phone);
    const memberId = await findOrCreateMemberByMobile(trx, person, channel.channelType);
    const order = await repo.insertOrder(trx, { channel, bankUserId, memberId, person });
    const activationId = await repo.insertActivation(trx, {
      channel,
      orderId: order.id,
      bankUserId,
      memberId,
      person,
      at,
    });
    const card = await takePoolCard(trx, channel);
    if (!card) throw cardPoolEmpty();
    const expireTime = await activatePoolCard(trx, {
      cardId: card.id,
      at,
      validityMonths: channel.validityMonths,
      orderNo: order.orderNo,
      bankUserId,
    });
    await bindActivatedCard(trx, { cardId: card.id, memberId, person, at, bankUserId });
    await repo.completeActivation(trx, { activationId, orderId: order.id, card, bankUserId });
    await repo.insertOrderLog(trx, {
      orderId: order.id,
      action: 'activate',
      content: `card ${card.cardNumber} (${channel.cardModelName}) activated and bound by operator ${channel.operatorName}`,
      bankUserId,
    });
    await recordOperation(trx, ctx, order.orderNo);
    return {
      ok: true,
      data: {
        id: activationId,
        orderNo: order.orderNo,
        cardNumber: card.cardNumber,
        cardModelName: channel.cardModelName,
        memberId,
        activeTime: formatDateTime(at),
        expireTime: formatDateTime(expireTime),
      },
    };
  }

  return {
    async activate(ctx: AuthedContext, input: BankCardActivateRequest): Promise<OpenapiAnswer<ActivationData>> {
      const relations = await sessions.of(ctx);
      if (!relations.operator) throw notAnOperator();
      const person = personOf(input);
      const target = { purpose: 'bank-activate' as const, phone: person.phone };
      const codeRefused = codeRefusal(await sms.codes.check({ ...target, code: input.verifyCode }));
      if (codeRefused) {
        await refused(db, ctx, codeRefused);
        return codeRefused;
      }

      let outcome: Outcome;
      try {
        outcome = await inTransaction(db, (trx) => activateIn(trx, ctx, relations.operator!.id, person));
      } catch (err) {
        // Another operator of the channel activated the same phone or ID number a moment earlier.
        if (isUniqueViolation(err, repo.PHONE_ACTIVATED_INDEX))
          outcome = await refused(db, ctx, alreadyActivated('phone'));
        else if (isUniqueViolation(err, repo.IDNO_ACTIVATED_INDEX))
          outcome = await refused(db, ctx, alreadyActivated('idNo'));
        else throw err;
      }
      if (!outcome.ok) return outcome.refusal;
      await sms.codes.consume(target);
      // Answered without waiting for the provider; the notifier logs a failure and never throws.
      void sms.notify({
        phone: person.phone,
        template: 'cardActivated',
        params: { cardName: outcome.data.cardModelName, cardNumber: outcome.data.cardNumber },
      });
      return openapiOk(outcome.data);
    },
  };
}

export type ActivationService = ReturnType<typeof createActivationService>;

import { scopeOf, type Scope } from '../../platform/auth/permissions.js';
import { parseDateField, parseDateRange } from '../../platform/date-range.js';
import type { Db } from '../../platform/db/database.js';
import { isUniqueViolation } from '../../platform/db/pg-errors.js';
import { loggedTransaction, type Trx } from '../../platform/db/transaction.js';
import { badRequest, conflict, forbidden } from '../../platform/errors.js';
import type { FaceService } from '../../platform/face/index.js';
import type { Store } from '../../platform/store/index.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import { idNumberProblem, normaliseIdNumber } from '../../platform/id-document.js';
import {
  cardAlreadyActivated,
  cardAlreadyBound,
  cardDisabled,
  cardExpired,
  cardNotActivated,
  cardNotBound,
  cardNotFound,
  merchantNotFound,
  modelDisabled,
  notYourShop,
  onlyPlatformMovesCards,
  shopNotFound,
  staffNotFound,
} from './card.errors.js';
import { findMerchantState } from '../merchant/index.js';
import { nonBlank, optionalText as optional } from '../../platform/text-input.js';
import { enrolHolderFace } from '../member/index.js';
import * as repo from './card.repository.js';
import {
  CardStatus,
  type Card,
  type CardActivate,
  type CardBind,
  type CardPageQuery,
  type CardReason,
  type CardRef,
} from './card.schemas.js';

/** Clock tolerance for an activation time "now" sent by a client whose clock runs a little ahead. */
const FUTURE_TOLERANCE_MS = 60_000;

function ref(input: CardRef): CardRef {
  if (input.id == null && !input.cardNumber?.trim()) throw badRequest('id or cardNumber is required');
  return input.id != null ? { id: input.id } : { cardNumber: input.cardNumber!.trim() };
}

function inScope(scope: Scope, card: repo.CardState): boolean {
  if (scope.kind === 'platform') return true;
  if (scope.kind === 'shop') return card.shopId === scope.shopId;
  return card.merchantId === scope.merchantId || card.modelMerchantId === scope.merchantId;
}

/**
 * Cards after their batch: activation (sold: active and expiry time, seller, channel, sales account),
 * binding to a holder, unbinding, disabling and enabling. Each change locks the card's row and checks
 * its state inside the transaction, so two concurrent changes of one card cannot both pass.
 */
export function createCardService(deps: { db: Db; face: FaceService; store: Store; now?: () => Date }) {
  const { db, face, store } = deps;
  const now = deps.now ?? (() => new Date());

  async function reachable(ctx: AuthedContext, input: CardRef, trx?: Trx): Promise<repo.CardState> {
    const card = await repo.findCard(trx ?? db, ref(input), trx !== undefined);
    if (!card) throw cardNotFound();
    if (!inScope(scopeOf(ctx.account), card)) throw forbidden('the card belongs to another merchant or shop');
    return card;
  }

  /** The seller after activation: the card's merchant unless a platform user names another; a shop of it. */
  async function seller(
    trx: Trx,
    scope: Scope,
    card: repo.CardState,
    input: CardActivate,
  ): Promise<{ merchantId: number | null; shopId: number | null }> {
    let merchantId = input.merchantId ?? card.merchantId;
    const shopId =
      input.shopId ?? (input.merchantId != null && input.merchantId !== card.merchantId ? null : card.shopId);
    if (shopId != null) {
      const owner = await repo.findShopOwner(trx, shopId);
      if (owner == null || (input.merchantId != null && owner !== input.merchantId)) throw shopNotFound();
      merchantId = owner;
    }
    if (merchantId !== card.merchantId) {
      if (scope.kind !== 'platform') throw onlyPlatformMovesCards();
      if (merchantId != null && !(await findMerchantState(trx, merchantId))) throw merchantNotFound();
    }
    if (scope.kind === 'shop' && shopId !== scope.shopId) throw notYourShop();
    return { merchantId, shopId };
  }

  function assertBindable(card: repo.CardState): void {
    if (card.storedStatus === CardStatus.DISABLED) throw cardDisabled(card.cardNumber);
    if (!card.activated) throw cardNotActivated(card.cardNumber);
    if (card.status === CardStatus.EXPIRED) throw cardExpired(card.cardNumber);
    if (card.bindingId !== null || card.storedStatus === CardStatus.BOUND) throw cardAlreadyBound(card.cardNumber);
  }

  return {
    async activate(ctx: AuthedContext, input: CardActivate): Promise<Card> {
      const at = now();
      const activeTime = input.activeTime ? parseDateField('activeTime', input.activeTime) : at;
      if (activeTime.getTime() > at.getTime() + FUTURE_TOLERANCE_MS)
        throw badRequest('activeTime is invalid: it must not be in the future');
      const expireTime = input.expireTime ? parseDateField('expireTime', input.expireTime, true) : null;
      if (expireTime && expireTime.getTime() <= activeTime.getTime())
        throw badRequest('expireTime is invalid: it must be after activeTime');
      return loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const card = await reachable(ctx, input, trx);
          if (card.storedStatus === CardStatus.DISABLED) throw cardDisabled(card.cardNumber);
          if (card.activated) throw cardAlreadyActivated(card.cardNumber);
          if (card.modelStatus !== 1) throw modelDisabled(card.cardModelName);
          const place = await seller(trx, scopeOf(ctx.account), card, input);
          const activeBy = input.activeBy ?? ctx.account.id;
          if (input.activeBy != null && !(await repo.staffExists(trx, activeBy))) throw staffNotFound();
          await repo.activateCard(
            trx,
            card.id,
            {
              channel: input.channel,
              activeTime,
              expireTime,
              validityMonths: card.validityMonths,
              ...place,
              activeBy,
              isDonation: input.isDonation ?? false,
              orderNo: optional(input.orderNo, null),
            },
            ctx.account.id,
          );
          return repo.toWire((await repo.findCard(trx, { id: card.id }))!);
        },
        (c) => c.id,
      );
    },

    async bind(ctx: AuthedContext, input: CardBind): Promise<Card> {
      const name = nonBlank('name', input.name);
      const idNo = normaliseIdNumber(input.idNo);
      const problem = idNumberProblem(input.idType, idNo, now());
      if (problem) throw badRequest(`idNo is invalid: it ${problem}`);
      const facePhoto = optional(input.facePhoto, null);
      // Checked before the face service is called, and again under the row lock below.
      assertBindable(await reachable(ctx, input));
      if (facePhoto) {
        // An external call: outside the transaction. Re-enrolling the same person id is harmless
        // should the binding then fail; the holder is the same person. Staff at a desk may replace a
        // face a member's contact enrolled; a member's contact can never replace this one.
        await enrolHolderFace({ db, face, store }, { personId: idNo, name, photo: facePhoto }, ctx.account.id);
      }
      return loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const card = await reachable(ctx, input, trx);
          assertBindable(card);
          try {
            await repo.insertBinding(
              trx,
              {
                cardId: card.id,
                memberId: await repo.memberIdByMobile(trx, input.phone),
                name,
                phone: input.phone,
                idType: input.idType,
                idNo,
                facePhoto,
              },
              ctx.account.id,
            );
          } catch (err) {
            if (isUniqueViolation(err, repo.BINDING_INDEX)) throw cardAlreadyBound(card.cardNumber);
            throw err;
          }
          await repo.setCardStatus(trx, card.id, CardStatus.BOUND, null, ctx.account.id);
          return repo.toWire((await repo.findCard(trx, { id: card.id }))!);
        },
        (c) => c.id,
      );
    },

    async unbind(ctx: AuthedContext, input: CardReason): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const card = await reachable(ctx, input, trx);
          if (card.bindingId === null) throw cardNotBound(card.cardNumber);
          await repo.endBinding(trx, card.bindingId, ctx.account.id);
          // A disabled or expired card stays so; a bound one is free for a new holder.
          if (card.storedStatus === CardStatus.BOUND)
            await repo.setCardStatus(trx, card.id, CardStatus.UNBOUND, optional(input.reason, null), ctx.account.id);
          return card.id;
        },
        (id) => id,
      );
    },

    async disable(ctx: AuthedContext, input: CardReason): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const card = await reachable(ctx, input, trx);
          if (card.storedStatus === CardStatus.DISABLED) throw cardDisabled(card.cardNumber);
          await repo.setCardStatus(trx, card.id, CardStatus.DISABLED, optional(input.reason, null), ctx.account.id);
          return card.id;
        },
        (id) => id,
      );
    },

    async enable(ctx: AuthedContext, input: CardReason): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const card = await reachable(ctx, input, trx);
          if (card.storedStatus !== CardStatus.DISABLED) throw conflict(`card ${card.cardNumber} is not disabled`);
          const status = card.expired
            ? CardStatus.EXPIRED
            : card.bindingId !== null
              ? CardStatus.BOUND
              : CardStatus.UNBOUND;
          await repo.setCardStatus(trx, card.id, status, optional(input.reason, null), ctx.account.id);
          return card.id;
        },
        (id) => id,
      );
    },

    async get(ctx: AuthedContext, input: CardRef): Promise<Card> {
      return repo.toWire(await reachable(ctx, input));
    },

    page(ctx: AuthedContext, query: CardPageQuery): Promise<Page<Card>> {
      const range = parseDateRange('activeTimeRange', query.activeTimeRange);
      return repo.pageCards(db, query, scopeOf(ctx.account), range, query);
    },
  };
}

export type CardService = ReturnType<typeof createCardService>;

import { scopeOf, type Scope } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import type { Executor } from '../../platform/db/executor.js';
import { loggedTransaction } from '../../platform/db/transaction.js';
import { parseDateField, parseDateRange } from '../../platform/date-range.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import { formatDateTime } from '../../platform/time.js';
import { assertMerchantEnabled } from '../merchant/index.js';
import * as err from './contract.errors.js';
import * as repo from './contract.repository.js';
import {
  DEFAULT_CONTRACT_TYPE,
  type Contract,
  type ContractAdd,
  type ContractFilter,
  type ContractPageQuery,
  type ContractUpdate,
} from './contract.schemas.js';

const PARTY_NONE = 0;
const PARTY_A = 1;
const PARTY_B = 2;

const idText = (v: number | null) => (v === null ? null : String(v));
/** A party id as it travels: digits or a number; absent, null or "" is none. */
const optionalId = (v: string | number | null | undefined) => (v == null || v === '' ? null : Number(v));
/** On update: absent or null keeps the stored value, "" clears it. */
const kept = <T>(given: T | null | undefined, stored: T | null): T | null => (given == null ? stored : given);

/**
 * Which side the caller is on, as answers show it: its shop decides for a shop user (or, on a contract
 * its shop keeps between whole merchants, its merchant), its merchant for a merchant user.
 */
function partyOf(scope: Scope, c: Pick<repo.ContractRow, 'merchantA' | 'shopA' | 'merchantB' | 'shopB'>): number {
  if (scope.kind === 'shop') {
    if (c.shopA === scope.shopId) return PARTY_A;
    if (c.shopB === scope.shopId) return PARTY_B;
  }
  if (scope.kind === 'platform') return PARTY_NONE;
  if (c.merchantA === scope.merchantId && (scope.kind === 'merchant' || c.shopA === null)) return PARTY_A;
  if (c.merchantB === scope.merchantId && (scope.kind === 'merchant' || c.shopB === null)) return PARTY_B;
  return PARTY_NONE;
}

/**
 * Whether the caller may write a contract between these parties: a shop user only as its own shop
 * (its merchant alone would bind the merchant's other shops), a merchant user as its merchant.
 */
function writesAsParty(
  scope: Scope,
  c: Pick<repo.ContractRow, 'merchantA' | 'shopA' | 'merchantB' | 'shopB'>,
): boolean {
  if (scope.kind === 'shop') return c.shopA === scope.shopId || c.shopB === scope.shopId;
  return partyOf(scope, c) !== PARTY_NONE;
}

type NamedMerchant = NonNullable<Awaited<ReturnType<typeof repo.findMerchant>>>;

function toWire(c: repo.ContractRow, scope: Scope): Contract {
  return {
    id: c.id,
    merchantId: c.merchantId,
    shopId: c.shopId,
    contractType: c.contractType,
    merchantA: idText(c.merchantA),
    shopA: idText(c.shopA),
    merchantB: idText(c.merchantB),
    shopB: idText(c.shopB),
    signTime: formatDateTime(c.signTime),
    beginDate: formatDateTime(c.beginDate),
    endDate: formatDateTime(c.endDate),
    merchantAName: c.merchantAName,
    shopAName: c.shopAName,
    merchantBName: c.merchantBName,
    shopBName: c.shopBName,
    party: partyOf(scope, c),
  };
}

function isVisible(scope: Scope, c: repo.ContractRow): boolean {
  if (scope.kind === 'platform') return true;
  if (scope.kind === 'merchant') return [c.merchantId, c.merchantA, c.merchantB].includes(scope.merchantId);
  return [c.shopId, c.shopA, c.shopB].includes(scope.shopId);
}

function isOwner(scope: Scope, c: repo.ContractRow): boolean {
  if (scope.kind === 'platform') return true;
  return c.merchantId === scope.merchantId && (scope.kind === 'merchant' || c.shopId === scope.shopId);
}

/**
 * Merchant contracts (spec B 2.6, 4.6 addMerchantContract; the rest is ours). Party names are
 * resolved from the merchant and shop records; merchant and shop users record only contracts their
 * own merchant or shop is a party to, see those, and change the ones they keep.
 */
export function createContractService(deps: { db: Db }) {
  const { db } = deps;

  /** The merchant of a shop named (for a party or as keeper) without its merchant; the merchant given otherwise. */
  async function merchantOfShop(
    trx: Executor,
    shopField: string,
    merchantId: number | null,
    shopId: number | null,
  ): Promise<number | null> {
    if (merchantId !== null || shopId === null) return merchantId;
    const shop = await repo.findShopOwner(trx, shopId);
    if (!shop) throw err.partyNotFound(shopField);
    return shop.merchantId;
  }

  /** One party: none while it is open; else the merchant must exist, and the shop, when given, must be that merchant's. */
  async function party(
    trx: Executor,
    side: 'A' | 'B',
    merchantId: number | null,
    shopId: number | null,
  ): Promise<NamedMerchant | null> {
    if (merchantId === null) return null;
    const merchant = await repo.findMerchant(trx, merchantId);
    if (!merchant) throw err.partyNotFound(`merchant${side}`);
    if (shopId !== null) {
      const shop = await repo.findShopOwner(trx, shopId);
      if (!shop) throw err.partyNotFound(`shop${side}`);
      if (shop.merchantId !== merchantId) throw err.shopNotOfMerchant(`shop${side}`, `merchant${side}`);
    }
    return merchant;
  }

  /**
   * Checks the request and answers the values to store; the owner defaults to the caller's merchant and
   * shop, and on add (`partyAIsKeeper`) an unnamed party A to the owner, unless the owner is party B.
   * `named` are the merchants the stored contract already names (update): a disabled one of those may
   * stay, but no disabled merchant is newly named, as keeper or as party.
   */
  async function resolve(
    trx: Executor,
    scope: Scope,
    input: ContractAdd,
    opts: { named?: ReadonlySet<number>; partyAIsKeeper?: boolean } = {},
  ): Promise<repo.ContractValues> {
    const named = opts.named ?? new Set<number>();
    const v: repo.ContractValues = {
      merchantId: input.merchantId ?? (scope.kind === 'platform' ? null : scope.merchantId),
      shopId: input.shopId ?? (scope.kind === 'shop' ? scope.shopId : null),
      contractType: input.contractType ?? DEFAULT_CONTRACT_TYPE,
      merchantA: optionalId(input.merchantA),
      shopA: optionalId(input.shopA),
      merchantB: optionalId(input.merchantB),
      shopB: optionalId(input.shopB),
      signTime: input.signTime ? parseDateField('signTime', input.signTime) : null,
      beginDate: input.beginDate ? parseDateField('beginDate', input.beginDate) : null,
      endDate: input.endDate ? parseDateField('endDate', input.endDate, true) : null,
    };
    if (v.beginDate && v.endDate && v.beginDate > v.endDate) throw err.endBeforeBegin();
    v.merchantId = await merchantOfShop(trx, 'shop (shopId)', v.merchantId, v.shopId);
    v.merchantA = await merchantOfShop(trx, 'shopA', v.merchantA, v.shopA);
    v.merchantB = await merchantOfShop(trx, 'shopB', v.merchantB, v.shopB);
    if (opts.partyAIsKeeper && v.merchantA === null && !(v.merchantB === v.merchantId && v.shopB === v.shopId)) {
      v.merchantA = v.merchantId;
      v.shopA = v.shopId;
    }
    if (v.merchantA !== null && v.merchantA === v.merchantB && v.shopA === v.shopB) throw err.samePartyTwice();
    const a = await party(trx, 'A', v.merchantA, v.shopA);
    const b = await party(trx, 'B', v.merchantB, v.shopB);
    if (scope.kind !== 'platform') {
      if (v.merchantId !== scope.merchantId || (scope.kind === 'shop' && v.shopId !== scope.shopId))
        throw err.ownerOutsideScope();
      if (!writesAsParty(scope, v)) throw err.notAParty();
    }
    // For merchant and shop staff the keeper is always one of the parties (often for the platform too): read only when not.
    let keeper: NamedMerchant | null = null;
    if (v.merchantId !== null) {
      keeper = [a, b].find((m) => m?.id === v.merchantId) ?? (await repo.findMerchant(trx, v.merchantId));
      if (!keeper) throw err.partyNotFound('merchant (merchantId)');
    }
    if (v.shopId !== null) {
      const shop = await repo.findShopOwner(trx, v.shopId);
      if (!shop) throw err.partyNotFound('shop (shopId)');
      if (shop.merchantId !== v.merchantId) throw err.shopNotOfMerchant('shopId', 'merchantId');
    }
    for (const m of [keeper, a, b]) {
      if (m && !named.has(m.id)) assertMerchantEnabled(m);
    }
    return v;
  }

  async function visible(scope: Scope, trx: Executor, id: number, forUpdate = false) {
    const c = await repo.findContract(trx, id, forUpdate);
    if (!c) throw err.contractNotFound();
    if (!isVisible(scope, c)) throw err.notVisible();
    return c;
  }

  function filterValues(f: ContractFilter): repo.ContractFilterValues {
    return {
      contractType: f.contractType,
      merchantId: f.merchantId,
      merchantA: optionalId(f.merchantA),
      merchantB: optionalId(f.merchantB),
      signTime: parseDateRange('signTimeRange', f.signTimeRange),
      idList: f.idList,
      keywords: f.keywords,
    };
  }

  return {
    add(ctx: AuthedContext, input: ContractAdd): Promise<Contract> {
      const scope = scopeOf(ctx.account);
      return loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const id = await repo.insertContract(
            trx,
            await resolve(trx, scope, input, { partyAIsKeeper: true }),
            ctx.account.id,
          );
          return toWire((await repo.findContract(trx, id))!, scope);
        },
        (c) => c.id,
      );
    },

    async update(ctx: AuthedContext, input: ContractUpdate): Promise<void> {
      const scope = scopeOf(ctx.account);
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const current = await visible(scope, trx, input.id, true);
          if (!isOwner(scope, current)) throw err.notTheOwner();
          const wire = toWire(current, scope);
          const named = new Set(
            [current.merchantId, current.merchantA, current.merchantB].filter((m): m is number => m !== null),
          );
          await repo.updateContract(
            trx,
            current.id,
            await resolve(
              trx,
              scope,
              {
                merchantId: input.merchantId ?? current.merchantId,
                shopId: input.shopId ?? current.shopId,
                contractType: input.contractType ?? current.contractType,
                merchantA: kept(input.merchantA, current.merchantA),
                shopA: kept(input.shopA, current.shopA),
                merchantB: kept(input.merchantB, current.merchantB),
                shopB: kept(input.shopB, current.shopB),
                signTime: kept(input.signTime, wire.signTime),
                beginDate: kept(input.beginDate, wire.beginDate),
                endDate: kept(input.endDate, wire.endDate),
              },
              { named },
            ),
            ctx.account.id,
          );
        },
        () => input.id,
      );
    },

    async remove(ctx: AuthedContext, id: number): Promise<void> {
      const scope = scopeOf(ctx.account);
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const current = await visible(scope, trx, id, true);
          if (!isOwner(scope, current)) throw err.notTheOwner();
          await repo.softDeleteContract(trx, id, ctx.account.id);
        },
        () => id,
      );
    },

    async get(ctx: AuthedContext, id: number): Promise<Contract> {
      const scope = scopeOf(ctx.account);
      return toWire(await visible(scope, db, id), scope);
    },

    async list(ctx: AuthedContext, filter: ContractFilter): Promise<Contract[]> {
      const scope = scopeOf(ctx.account);
      return (await repo.listContracts(db, filterValues(filter), scope)).map((c) => toWire(c, scope));
    },

    async page(ctx: AuthedContext, query: ContractPageQuery): Promise<Page<Contract>> {
      const scope = scopeOf(ctx.account);
      const p = await repo.pageContracts(db, filterValues(query), scope, query);
      return { list: p.list.map((c) => toWire(c, scope)), total: p.total };
    },
  };
}

export type ContractService = ReturnType<typeof createContractService>;

import { deleteShopDepts, insertTopDept } from '../dept/index.js';
import { assertInScope, scopeOf } from '../../platform/auth/permissions.js';
import { hashPassword } from '../../platform/auth/password.js';
import type { TokenService } from '../../platform/auth/tokens.js';
import type { Db } from '../../platform/db/database.js';
import type { Executor } from '../../platform/db/executor.js';
import { findReferences, stillReferenced } from '../../platform/db/references.js';
import { loggedTransaction } from '../../platform/db/transaction.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import { generatePassword } from '../../platform/auth/generated-password.js';
import * as err from './shop.errors.js';
import * as repo from './shop.repository.js';
import {
  SHOP_TEXT_FIELDS,
  type Shop,
  type ShopAdd,
  type ShopAdded,
  type ShopFilter,
  type ShopPageQuery,
  type ShopUpdate,
} from './shop.schemas.js';
import { optionalText } from '../../platform/text-input.js';
import {
  deleteShopStaff,
  ensureGlobalRole,
  freeUsername,
  insertShopUser,
  shopStaffIds,
  firstUngrantable,
  deletableUser,
  grantBeyondOwn,
  keepingASuperAdmin,
  SHOP_ADMIN_CODE,
} from '../staff/index.js';
import { assertMerchantEnabled } from '../merchant/index.js';

/**
 * The global role every default shop user gets, created with these permissions on first use
 * (docs/adr/0047-add-shop-creates-its-default-user-and-the-global-shop-role.mdlists why these); an operator may change the stored role afterwards.
 */
export const SHOP_ADMIN_ROLE = {
  code: SHOP_ADMIN_CODE,
  name: '门店管理员',
  permissions: [
    'shop:read',
    'dept:*',
    'catalog:*',
    'sales:*',
    'custom:*',
    'checker:*',
    'statistics:*',
    'settlement:read',
    'contract:read',
    'member:read',
    'hotel:read',
    'coupon:read',
    'region:read',
    'area:read',
  ],
} as const;

function values(input: ShopAdd | ShopUpdate, merchantId: number, current: repo.ShopFields | null): repo.ShopValues {
  const texts = Object.fromEntries(
    SHOP_TEXT_FIELDS.map((f) => [f, optionalText(input[f], current ? current[f] : null)]),
  ) as Pick<repo.ShopValues, (typeof SHOP_TEXT_FIELDS)[number]>;
  return {
    merchantId,
    name: input.name.trim(),
    typeId: input.typeId ?? current?.typeId ?? null,
    subTypeId: input.subTypeId ?? current?.subTypeId ?? null,
    status: input.status ?? current?.status ?? 1,
    ...texts,
  };
}

function relations(list: NonNullable<ShopAdd['relationList']>): repo.RelationValues[] {
  return list.map((r) => ({
    thirdName: optionalText(r.thirdName, null),
    thirdId: optionalText(r.thirdId, null),
    channelType: r.channelType ?? null,
    remark: optionalText(r.remark, null),
  }));
}

/**
 * Shops (spec B 2.6, 4.6 addShop; the rest is ours). addShop makes in one transaction the shop, its
 * top-level department, a default shop user (generated password, answered once) with its role and
 * department links, and the shop's third-party relations.
 */
export function createShopService(deps: { db: Db; tokens: Pick<TokenService, 'revokeAccounts'> }) {
  const { db, tokens } = deps;

  async function visible(ctx: AuthedContext, trx: Executor, id: number, forUpdate = false) {
    const shop = await repo.findShop(trx, id, forUpdate);
    if (!shop) throw err.shopNotFound();
    assertInScope(ctx.account, { merchantId: shop.merchantId, shopId: shop.id });
    return shop;
  }

  return {
    async add(ctx: AuthedContext, input: ShopAdd): Promise<ShopAdded> {
      const scope = scopeOf(ctx.account);
      if (scope.kind === 'shop') throw err.shopUsersCannot('add');
      if (scope.kind === 'merchant' && input.merchantId !== scope.merchantId) throw err.otherMerchant();
      // Hashed before the transaction opens: argon2 takes ~15 ms that no lock needs to wait for.
      const password = generatePassword(14);
      const passwordHash = await hashPassword(password);
      return loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const merchant = await repo.findMerchant(trx, input.merchantId);
          if (!merchant) throw err.merchantNotFound();
          assertMerchantEnabled(merchant);
          // The default user's role is granted on the caller's behalf, so the staff module's rule holds here
          // too, checked against the role as stored (an operator may have widened it), not the list above.
          const role = await ensureGlobalRole(
            trx,
            SHOP_ADMIN_ROLE.code,
            SHOP_ADMIN_ROLE.name,
            SHOP_ADMIN_ROLE.permissions,
          );
          const beyond = firstUngrantable(ctx.account, role.permissions);
          if (beyond) throw grantBeyondOwn(`the default shop user's ${beyond}`);
          const v = values(input, merchant.id, null);
          const shopId = await repo.insertShop(trx, v, ctx.account.id);
          const deptId = await insertTopDept(
            trx,
            { id: shopId, merchantId: merchant.id, name: v.name },
            ctx.account.id,
          );
          const username = await freeUsername(trx, `shop${shopId}`);
          const userId = await insertShopUser(
            trx,
            {
              username,
              passwordHash,
              nickname: `${v.name.slice(0, 59)}管理员`,
              merchantId: merchant.id,
              shopId,
              deptId,
              roleId: role.id,
            },
            ctx.account.id,
          );
          await repo.replaceRelations(trx, shopId, relations(input.relationList ?? []), ctx.account.id);
          return { id: shopId, name: v.name, merchantId: merchant.id, deptId, userId, username, password };
        },
        (added) => added.id,
      );
    },

    async update(ctx: AuthedContext, input: ShopUpdate): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const current = await visible(ctx, trx, input.id, true);
          if (input.merchantId != null && input.merchantId !== current.merchantId) throw err.merchantFixed();
          await repo.updateShop(trx, current.id, values(input, current.merchantId, current), ctx.account.id);
          if (input.relationList != null)
            await repo.replaceRelations(trx, current.id, relations(input.relationList), ctx.account.id);
        },
        () => input.id,
      );
    },

    /**
     * Deletes a shop nothing of business refers to any more, with its departments and staff accounts
     * (their sessions end at once). A shop with records is closed instead (status 4). Each account is
     * deleted only if deleteUser would delete it (the staff module's checks, all before any write).
     */
    async remove(ctx: AuthedContext, id: number): Promise<void> {
      if (scopeOf(ctx.account).kind === 'shop') throw err.shopUsersCannot('delete');
      const removedUsers = await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          await visible(ctx, trx, id, true);
          const refs = await findReferences(trx, id, repo.SHOP_REFERENCES);
          const outsiders = await repo.outsidersInShopDepts(trx, id);
          if (outsiders) refs.push(outsiders);
          if (refs.length > 0) throw stillReferenced('the shop', refs);
          for (const userId of await shopStaffIds(trx, id)) await deletableUser(ctx, trx, userId);
          return keepingASuperAdmin(trx, async () => {
            const at = new Date();
            const staffIds = await deleteShopStaff(trx, id, ctx.account.id, at);
            await deleteShopDepts(trx, id, ctx.account.id, at);
            await repo.softDeleteShop(trx, id, ctx.account.id);
            return staffIds;
          });
        },
        () => id,
      );
      await tokens.revokeAccounts('admin', removedUsers);
    },

    async get(ctx: AuthedContext, id: number): Promise<Shop> {
      return repo.shopWithRelations(db, await visible(ctx, db, id));
    },

    list(ctx: AuthedContext, filter: ShopFilter): Promise<Shop[]> {
      return repo.listShops(db, filter, scopeOf(ctx.account));
    },

    page(ctx: AuthedContext, query: ShopPageQuery): Promise<Page<Shop>> {
      return repo.pageShops(db, query, scopeOf(ctx.account), query);
    },
  };
}

export type ShopService = ReturnType<typeof createShopService>;

import type { Db } from '../../platform/db/database.js';
import type { SharedCache } from '../../platform/cache.js';
import { conflict, notFound } from '../../platform/errors.js';
import type { AuthedContext, RequestContext } from '../../platform/http/context.js';
import { loggedTransaction } from '../../platform/db/transaction.js';
import { pageWindow } from '../../platform/http/paging.js';
import { RawJson } from '../../platform/http/responses.js';
import * as repo from './region.repository.js';
import { matchRegion, RegionIndex } from './region-filter.js';
import { treeToJson } from '../../platform/tree.js';
import { assertUnreferenced } from '../../platform/db/references.js';
import { optionalText as optional } from '../../platform/text-input.js';
import { isSelfOrAncestor, lockTreeMoves, type TreeTable } from '../../platform/db/tree-ancestry.js';
import type { Region, RegionAdd, RegionFilter, RegionPageQuery, RegionUpdate } from './region.schemas.js';

/** Cache entries every region write drops (the area tree is built from the same rows). */
export const REGION_CACHES = ['region:list', 'region:index', 'region:tree', 'area:tree'] as const;
const REGION_TREE: TreeTable = { table: 'region' };

function addValues(input: RegionAdd): repo.RegionValues {
  return {
    name: input.name.trim(),
    parentId: input.parentId ?? 0,
    shortName: optional(input.shortName, null),
    levelType: input.levelType,
    cityCode: optional(input.cityCode, null),
    zipCode: optional(input.zipCode, null),
    mergerName: optional(input.mergerName, null),
    lng: input.lng ?? null,
    lat: input.lat ?? null,
    pinYin: optional(input.pinYin, null),
  };
}

/** As the other modules update (docs/adr/0023-updates-keep-what-is-absent.md): absent or null keeps what is stored, "" clears a text. */
function updateValues(input: RegionUpdate, current: Region): repo.RegionValues {
  return {
    name: input.name.trim(),
    parentId: input.parentId ?? current.parentId,
    shortName: optional(input.shortName, current.shortName),
    levelType: input.levelType,
    cityCode: optional(input.cityCode, current.cityCode),
    zipCode: optional(input.zipCode, current.zipCode),
    mergerName: optional(input.mergerName, current.mergerName),
    lng: input.lng ?? current.lng,
    lat: input.lat ?? current.lat,
    pinYin: optional(input.pinYin, current.pinYin),
  };
}

/** The region dictionary (spec A 4.5): reads from the shared cache, writes invalidate it everywhere. */
export function createRegionService(deps: { db: Db; cache: SharedCache }) {
  const { db, cache } = deps;

  const allRegions = () => cache.getOrLoad('region:list', () => repo.listAllRegions(db));
  const regionIndex = () => cache.getOrLoad('region:index', async () => new RegionIndex(await allRegions()));

  /** A region may not move under itself or anything below it, however deep: that would make a loop. */
  async function assertParentAllowed(trx: Parameters<typeof repo.findRegion>[0], parentId: number, selfId: number) {
    if (parentId === 0) return;
    await lockTreeMoves(trx, REGION_TREE);
    if (!(await repo.findRegion(trx, parentId))) throw notFound('parent region');
    if (await isSelfOrAncestor(trx, REGION_TREE, selfId, parentId)) {
      throw conflict('a region cannot be moved under itself or one of its descendants');
    }
  }

  return {
    allRegions,

    async add(ctx: AuthedContext, input: RegionAdd): Promise<Region> {
      const v = addValues(input);
      const region = await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          if (v.parentId !== 0 && !(await repo.lockRegion(trx, v.parentId))) throw notFound('parent region');
          return repo.insertRegion(trx, v, ctx.account.id);
        },
        (created) => created.id,
      );
      await cache.invalidate(...REGION_CACHES);
      return region;
    },

    async update(ctx: AuthedContext, input: RegionUpdate): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const current = await repo.lockRegion(trx, input.id);
          if (!current) throw notFound('region');
          const v = updateValues(input, current);
          if (v.parentId !== current.parentId) await assertParentAllowed(trx, v.parentId, input.id);
          await repo.updateRegion(trx, input.id, v, ctx.account.id);
        },
        () => input.id,
      );
      await cache.invalidate(...REGION_CACHES);
    },

    async remove(ctx: AuthedContext, id: number): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          if (!(await repo.lockRegion(trx, id))) throw notFound('region');
          if (await repo.hasChildren(trx, id))
            throw conflict('the region has child regions: delete or move them first');
          await assertUnreferenced(trx, 'the region', id, repo.REGION_REFERENCES);
          await repo.deleteRegion(trx, id);
        },
        () => id,
      );
      await cache.invalidate(...REGION_CACHES);
    },

    async get(id: number): Promise<Region> {
      const region = await repo.findRegion(db, id);
      if (!region) throw notFound('region');
      return region;
    },

    async list(_ctx: RequestContext, filter: RegionFilter): Promise<Region[]> {
      return (await allRegions()).filter(matchRegion(filter));
    },

    /** Serialised once per request shape and cache generation (RegionIndex.pageAnswer). */
    async page(query: RegionPageQuery): Promise<RawJson> {
      const { limit, offset } = pageWindow(query);
      return (await regionIndex()).pageAnswer(query, offset, limit);
    },

    /** Serialised once per cache generation: the tree is large and read far more than written. */
    async tree(): Promise<RawJson> {
      return cache.getOrLoad('region:tree', async () => new RawJson(treeToJson(await allRegions(), (r) => r)));
    },
  };
}

export type RegionService = ReturnType<typeof createRegionService>;

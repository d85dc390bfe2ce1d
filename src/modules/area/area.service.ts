import { isIP } from 'node:net';
import type { SharedCache } from '../../platform/cache.js';
import { badRequest } from '../../platform/errors.js';
import { RawJson } from '../../platform/http/responses.js';
import type { RegionService } from '../region/index.js';
import { treeToJson } from '../../platform/tree.js';
import { locateIp } from './ip-locator.js';

export const UNKNOWN_AREA = '未知';
const LOCAL_NETWORK = '内网IP';

/** Area lookups of the system module (spec A 4.8), built on the region dictionary. */
export function createAreaService(deps: { cache: SharedCache; regions: RegionService }) {
  return {
    /** Province → city → district, as {id, name, children}; a leaf's children is [], as in the region tree. */
    async tree(): Promise<RawJson> {
      return deps.cache.getOrLoad('area:tree', async () => {
        const levels = (await deps.regions.allRegions()).filter((r) => r.levelType >= 1 && r.levelType <= 3);
        return new RawJson(treeToJson(levels, (r) => ({ id: r.id, name: r.name })));
      });
    },

    /** "江苏省 南京市" for an address in China, the country elsewhere, "未知" when nothing is known. */
    async formatByIp(ip: string): Promise<string> {
      const text = ip.trim();
      if (!isIP(text)) throw badRequest('ip is invalid: must be an IPv4 or IPv6 address');
      // A zone id (fe80::1%eth0) scopes an address to one local link: it has no place on a map.
      if (text.includes('%')) return UNKNOWN_AREA;
      const found = locateIp(text);
      if (!found || found.city === LOCAL_NETWORK) return UNKNOWN_AREA;
      if (found.country && found.country !== '中国') return found.country;
      const regions = await deps.regions.allRegions();
      // ip2region writes some provinces short ("上海"); the dictionary's full name reads better.
      const province = found.province
        ? (regions.find((r) => r.levelType === 1 && (r.name === found.province || r.shortName === found.province))
            ?.name ?? found.province)
        : '';
      const parts = [province, found.city].filter((p) => p && p !== '0');
      return parts.length ? parts.join(' ') : found.country || UNKNOWN_AREA;
    },
  };
}

export type AreaService = ReturnType<typeof createAreaService>;

import type { Deps } from '../platform/deps.js';
import type { ModuleDefinition } from '../platform/module.js';
import type { RouteSpec } from '../platform/http/routes.js';
import { authModule } from './auth/index.js';
import { checkerModule } from './checker/index.js';
import { memberModule } from './member/index.js';
import { regionModule } from './region/index.js';
import { areaModule } from './area/index.js';
import { salesModule } from './sales/index.js';
import { codegenModule } from './codegen/index.js';
import { deptModule } from './dept/index.js';
import { catalogModule } from './catalog/index.js';
import { shopModule } from './shop/index.js';
import { contractModule } from './contract/index.js';
import { customModule } from './custom/index.js';
import { hotelModule } from './hotel/index.js';
import { couponModule } from './coupon/index.js';
import { allocationModule } from './allocation/index.js';
import { bankModule } from './bank/index.js';
import { storageModule } from './storage/index.js';
import { merchantModule } from './merchant/index.js';
import { staffModule } from './staff/index.js';
import { verifierModule } from './verifier/index.js';
import { memberAdminModule } from './member-admin/index.js';
import { cardModule } from './card/index.js';
import { settlementModule } from './settlement/index.js';
import { statisticsModule } from './statistics/index.js';

/** Every business module the service serves; each declares its routes and account loaders itself. */
export const MODULES: readonly ModuleDefinition[] = [
  authModule,
  checkerModule,
  memberModule,
  regionModule,
  areaModule,
  salesModule,
  codegenModule,
  deptModule,
  catalogModule,
  shopModule,
  contractModule,
  customModule,
  hotelModule,
  couponModule,
  allocationModule,
  bankModule,
  storageModule,
  merchantModule,
  staffModule,
  verifierModule,
  memberAdminModule,
  cardModule,
  settlementModule,
  statisticsModule,
];

/** Registers the modules' account loaders with the token service and answers all their routes. */
export function createModules(deps: Deps, modules: readonly ModuleDefinition[] = MODULES): RouteSpec[] {
  const routes: RouteSpec[] = [];
  for (const module of modules) {
    for (const [kind, loader] of Object.entries(module.accountLoaders ?? {})) {
      if (loader) deps.tokens.registerLoader(kind as keyof NonNullable<ModuleDefinition['accountLoaders']>, loader);
    }
    const own = module.errcodes ?? [];
    for (const route of module.routes(deps))
      routes.push(own.length ? { ...route, errcodes: [...own, ...(route.errcodes ?? [])] } : route);
  }
  return routes;
}

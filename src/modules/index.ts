import type { Deps } from '../platform/deps.js';
import type { ModuleDefinition } from '../platform/module.js';
import type { RouteSpec } from '../platform/http/routes.js';
import { authModule } from './auth/auth.module.js';
import { checkerModule } from './checker/checker.module.js';
import { memberModule } from './member/member.module.js';
import { regionModule } from './region/region.module.js';
import { areaModule } from './area/area.module.js';
import { salesModule } from './sales/sales.module.js';
import { codegenModule } from './codegen/codegen.module.js';
import { deptModule } from './dept/dept.module.js';
import { catalogModule } from './catalog/catalog.module.js';
import { shopModule } from './shop/shop.module.js';
import { contractModule } from './contract/contract.module.js';
import { customModule } from './custom/custom.module.js';
import { hotelModule } from './hotel/hotel.module.js';
import { couponModule } from './coupon/coupon.module.js';
import { allocationModule } from './allocation/allocation.module.js';
import { bankModule } from './bank/bank.module.js';
import { storageModule } from './storage/storage.module.js';
import { merchantModule } from './merchant/merchant.module.js';
import { staffModule } from './staff/staff.module.js';
import { verifierModule } from './verifier/verifier.module.js';
import { memberAdminModule } from './member-admin/member-admin.module.js';
import { cardModule } from './card/card.module.js';
import { estimationModule } from './estimation/estimation.module.js';
import { settlementModule } from './settlement/settlement.module.js';
import { statisticsModule } from './statistics/statistics.module.js';

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
  estimationModule,
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
    for (const route of module.routes(deps)) routes.push(own.length ? { ...route, errcodes: [...own, ...(route.errcodes ?? [])] } : route);
  }
  return routes;
}

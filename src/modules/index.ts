import type { Deps } from '../platform/deps.js';
import type { RouteSpec } from '../platform/http/routes.js';
import { authRoutes } from './auth/auth.routes.js';
import { createCaptchaService } from './auth/captcha.service.js';
import { createStaffAuthService } from './auth/staff-auth.service.js';
import { loadStaffAccount } from './auth/staff.repository.js';
import { regionRoutes } from './region/region.routes.js';
import { createRegionService } from './region/region.service.js';
import { areaRoutes } from './area/area.routes.js';
import { createAreaService } from './area/area.service.js';

/** Wires every business module to its dependencies and answers the routes they serve. */
export function createModules(deps: Deps): RouteSpec[] {
  const { config, db, store, cache, tokens } = deps;

  tokens.registerLoader('admin', loadStaffAccount);
  const captcha = createCaptchaService({ store, ratePerMin: config.captchaRatePerMin, bypassCode: config.captchaBypassCode });
  const staff = createStaffAuthService({ db, store, tokens, captcha, loginRatePerMin: config.loginRatePerMin });

  const regions = createRegionService({ db, cache });
  const area = createAreaService({ cache, regions });

  return [
    ...authRoutes({ staff, captcha, tokens }),
    ...regionRoutes(regions),
    ...areaRoutes(area),
  ];
}

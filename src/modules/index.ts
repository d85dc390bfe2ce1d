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
import { createMiniProgramLogin } from '../platform/wechat/index.js';
import { checkerRoutes } from './checker/checker.routes.js';
import { createCheckerAuthService } from './checker/checker-auth.service.js';
import { loadCheckerAccount } from './checker/checker-login.repository.js';
import { memberRoutes } from './member/member.routes.js';
import { createMemberAuthService } from './member/member-auth.service.js';
import { loadMemberAccount } from './member/member.repository.js';

/** Wires every business module to its dependencies and answers the routes they serve. */
export function createModules(deps: Deps): RouteSpec[] {
  const { config, db, store, cache, tokens } = deps;

  tokens.registerLoader('admin', loadStaffAccount);
  const captcha = createCaptchaService({ store, ratePerMin: config.captchaRatePerMin, bypassCode: config.captchaBypassCode });
  const staff = createStaffAuthService({ db, store, tokens, captcha, loginRatePerMin: config.loginRatePerMin });
  tokens.registerLoader('checker', loadCheckerAccount);
  const checkerAuth = createCheckerAuthService({ db, store, tokens, loginRatePerMin: config.loginRatePerMin });
  tokens.registerLoader('member', loadMemberAccount);
  const memberAuth = createMemberAuthService({
    db, store, tokens, miniProgram: createMiniProgramLogin(config), loginRatePerMin: config.loginRatePerMin,
  });

  const regions = createRegionService({ db, cache });
  const area = createAreaService({ cache, regions });

  return [
    ...authRoutes({ staff, captcha, tokens }),
    ...checkerRoutes({ auth: checkerAuth }),
    ...memberRoutes({ auth: memberAuth }),
    ...regionRoutes(regions),
    ...areaRoutes(area),
  ];
}

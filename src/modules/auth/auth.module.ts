import { defineModule } from '../../platform/module.js';
import { authRoutes } from './auth.routes.js';
import { createCaptchaService } from './captcha.service.js';
import { createStaffAuthService } from './staff-auth.service.js';
import { loadStaffAccount } from './staff.repository.js';

/** Staff login with captcha, logout, and token refresh on every channel (spec A 4.1). */
export const authModule = defineModule({
  name: 'auth',
  accountLoaders: { admin: loadStaffAccount },
  routes: ({ config, db, store, tokens }) => {
    const captcha = createCaptchaService({
      store,
      ratePerMin: config.captchaRatePerMin,
      bypassCode: config.captchaBypassCode,
    });
    const staff = createStaffAuthService({ db, store, tokens, captcha, loginRatePerMin: config.loginRatePerMin });
    return authRoutes({ staff, captcha, tokens });
  },
});

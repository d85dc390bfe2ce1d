import { defineModule } from '../../platform/module.js';
import { createMiniProgramLogin } from '../../platform/wechat/index.js';
import { memberRoutes } from './member.routes.js';
import { memberContactsRoutes } from './member-contacts.routes.js';
import { createMemberAuthService } from './member-auth.service.js';
import { createMemberContactsService } from './member-contacts.service.js';
import { createMemberProfileService } from './member-profile.service.js';
import { loadMemberAccount } from './member.repository.js';

/** Members: mini-program login (spec A 4.1), the member's profile, phone and contacts, the staff member page (A 4.2). */
export const memberModule = defineModule({
  name: 'member',
  accountLoaders: { member: loadMemberAccount },
  routes: ({ config, db, store, tokens, sms, face }) => [
    ...memberRoutes({
      auth: createMemberAuthService({
        db,
        store,
        tokens,
        miniProgram: createMiniProgramLogin(config),
        loginRatePerMin: config.loginRatePerMin,
      }),
      profile: createMemberProfileService({ db, codes: sms.codes }),
    }),
    ...memberContactsRoutes(createMemberContactsService({ db, face, store })),
  ],
});

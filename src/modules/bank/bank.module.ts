import { defineModule } from '../../platform/module.js';
import { createActivationService } from './activation.service.js';
import { createBankAuthService } from './bank-auth.service.js';
import { bankRoutes } from './bank.routes.js';
import { createBankSessions } from './bank-session.js';
import { createBankStatService } from './bank-stat.service.js';
import { loadBankAccount } from './bank-user.repository.js';

/** The bank channel (spec B 4.4): bank logins, card activation within operator quotas, statistics and export. */
export const bankModule = defineModule({
  name: 'bank',
  accountLoaders: { bank: loadBankAccount },
  routes: ({ config, db, store, tokens, sessionValues, sms }) => {
    const sessions = createBankSessions({ db, sessionValues });
    return bankRoutes({
      auth: createBankAuthService({ db, store, tokens, sessions, sms, loginRatePerMin: config.loginRatePerMin }),
      activation: createActivationService({ db, sms, sessions }),
      stat: createBankStatService({ db, sessions }),
    });
  },
});

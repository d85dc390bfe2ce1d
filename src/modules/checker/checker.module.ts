import { defineModule } from '../../platform/module.js';
import { checkerRoutes } from './checker.routes.js';
import { createCheckerAuthService } from './checker-auth.service.js';
import { loadCheckerAccount } from './checker-login.repository.js';
import { checkinRoutes } from './checkin.routes.js';
import { createCheckinService } from './checkin.service.js';
import { createConsumeRecordService } from './consume-record.service.js';
import { createCheckFailService } from './check-fail.service.js';
import { checkerConfigRoutes } from './checker-config.routes.js';
import { createCheckerConfigService } from './checker-config.service.js';
import { dayCountPruningJob } from './day-count-pruning.js';
import { checkPartitionJobs } from './check-partitions.js';
import { offlineSyncRoutes } from './offline-sync.routes.js';
import { createOfflineSyncService } from './offline-sync.service.js';
import { checkConflictRoutes } from './check-conflict.routes.js';
import { createCheckConflictService } from './check-conflict.service.js';
import { offlinePackRoutes } from './offline-pack.routes.js';
import { createOfflinePackService } from './offline-pack.service.js';
import { createPackKeySource } from './offline-pack-key.js';
import { capacityRoutes } from './capacity.routes.js';
import { createCapacityService } from './capacity.service.js';
import { admissionsRoutes } from './admissions.routes.js';
import { createAdmissionsService } from './admissions.service.js';
import { AdmissionHub } from './admission-stream.js';
import { boardPages } from './board/board-page.js';
import type { Config } from '../../config.js';
import type { Db } from '../../platform/db/database.js';

/** One admission poller per app, keyed by its configuration (admission-stream.ts), for its routes and its closing. */
const hubs = new WeakMap<Config, AdmissionHub>();
function hubOf(config: Config, db: Db): AdmissionHub {
  let hub = hubs.get(config);
  if (!hub) hubs.set(config, (hub = new AdmissionHub(db, config.admissionStreamsMax)));
  return hub;
}

/**
 * Verifiers: login and logout (spec A 4.1), check-in and the verifier's records (B 4.2, app channel),
 * the failed-scan log and verifier configuration (B 4.2, manage channel).
 */
export const checkerModule = defineModule({
  name: 'checker',
  accountLoaders: { checker: loadCheckerAccount },
  routes: ({ config, db, store, tokens, face }) => [
    ...checkerRoutes({
      auth: createCheckerAuthService({ db, store, tokens, loginRatePerMin: config.loginRatePerMin }),
    }),
    ...checkinRoutes({
      checkin: createCheckinService({ db, face }),
      records: createConsumeRecordService({ db }),
      fails: createCheckFailService({ db }),
    }),
    ...checkerConfigRoutes(createCheckerConfigService({ db })),
    ...offlineSyncRoutes(createOfflineSyncService({ db })),
    ...checkConflictRoutes(createCheckConflictService({ db })),
    ...offlinePackRoutes(
      createOfflinePackService({
        db,
        keys: createPackKeySource({ db, configured: config.offlinePack.signingKey }),
        ttlHours: config.offlinePack.ttlHours,
        timeZone: config.tz,
      }),
    ),
    ...capacityRoutes(createCapacityService({ db })),
    ...admissionsRoutes(createAdmissionsService({ db, hub: hubOf(config, db) })),
  ],
  jobs: ({ db, config }) => [dayCountPruningJob(db), ...checkPartitionJobs(db, config)],
  pages: () => boardPages(),
  preClose: ({ config }) => hubs.get(config)?.closeAll(),
});

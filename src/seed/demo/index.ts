import type { Database } from '../../platform/db/database.js';
import {
  DEMO_MEMBER_CODE,
  DEMO_MERCHANT_USER,
  DEMO_PASSWORD,
  DEMO_PLATFORM_USER,
  DEMO_SHOP_USER,
  DEMO_VERIFIER_MOBILE,
} from './constants.js';
import { generateDemoData, type DemoOptions, type DemoResult } from './generate.js';
import { DEMO_BANK_MANAGER_MOBILE, DEMO_BANK_TELLER_MOBILE } from './bank.js';

export { generateDemoData } from './generate.js';
export type { DemoOptions, DemoProgress, DemoResult, DemoStats } from './generate.js';
export * from './constants.js';

/**
 * DEMO=1 at start: makes the demo data set when the database holds no business records yet, and
 * skips (status 'exists' or 'refused', nothing written) otherwise. Run it after migrations and
 * reference data, before the server listens. Errors (a failed write) propagate: the transaction has
 * been rolled back and the database is as it was.
 */
export function seedDemoIfEmpty(
  database: Database,
  opts: DemoOptions & { databaseUrl: string | null },
): Promise<DemoResult> {
  return generateDemoData(database, opts);
}

/** The lines to print after a run: what happened and, when demo data is there, how to log in. */
export function describeDemoResult(result: DemoResult, adminUsername = 'admin'): string[] {
  const lines = [`  ${result.message}`];
  if (result.status === 'refused') return lines;
  if (result.status === 'created') {
    const s = result.stats;
    lines.push(
      `  ${s.checkRows} check-ins in ${s.checkSeconds.toFixed(1)} s (${Math.round(s.checkRate)} rows/s, ${s.backend}, ${s.loadMode} load); whole run ${s.seconds.toFixed(1)} s.`,
    );
  }
  lines.push(
    '  Demo logins (password ' + DEMO_PASSWORD + ' unless noted):',
    `    platform   ${adminUsername} (bootstrap admin, its own password) or ${DEMO_PLATFORM_USER}`,
    `    merchant   ${DEMO_MERCHANT_USER}   (scenic-spot operator)`,
    `    shop       ${DEMO_SHOP_USER}       (a scenic spot of that operator)`,
    `    verifier   mobile ${DEMO_VERIFIER_MOBILE} (app channel)`,
    `    member     mini-program login code "${DEMO_MEMBER_CODE}" (local provider)`,
    `    bank       mobile ${DEMO_BANK_TELLER_MOBILE} (teller) or ${DEMO_BANK_MANAGER_MOBILE} (manager), plus an SMS code (/manage-api/bank/bankLogin)`,
  );
  return lines;
}

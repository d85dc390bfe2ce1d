import type { Executor } from '../../platform/db/executor.js';
import {
  businessMaxIds,
  listDemoDatasets,
  takenCheckerMobiles,
  takenUsernames,
  type DemoDatasetRow,
} from './demo.repository.js';

/**
 * The generator writes only into a database without business records of someone else's:
 * - no demo_dataset row: there must be no merchant, card or card_check at all;
 * - demo_dataset rows: the demo data is there already (nothing to do), unless some merchant, card or
 *   check has an id above what the demo run recorded — records added since, which we refuse to mix with.
 * Run inside the generator's transaction, after its advisory lock, so two runs cannot both pass.
 */
export type Verdict =
  { kind: 'empty' } | { kind: 'exists'; dataset: DemoDatasetRow } | { kind: 'refused'; reason: string };

export async function assessDatabase(db: Executor): Promise<Verdict> {
  const datasets = await listDemoDatasets(db);
  const max = await businessMaxIds(db);
  const present = (['merchant', 'card', 'check'] as const).filter((k) => max[k] !== null);
  if (datasets.length === 0) {
    if (present.length === 0) return { kind: 'empty' };
    return {
      kind: 'refused',
      reason: `the database already holds ${present.map(label).join(', ')} that the demo generator did not make`,
    };
  }
  const recorded = {
    merchant: Math.max(...datasets.map((d) => d.maxMerchantId)),
    card: Math.max(...datasets.map((d) => d.maxCardId)),
    check: Math.max(...datasets.map((d) => d.maxCheckId)),
  };
  const newer = present.filter((k) => (max[k] ?? 0) > recorded[k]);
  if (newer.length) {
    return {
      kind: 'refused',
      reason: `the database holds demo data plus ${newer.map(label).join(', ')} added after it`,
    };
  }
  return { kind: 'exists', dataset: datasets[datasets.length - 1] };
}

const label = (k: 'merchant' | 'card' | 'check') => ({ merchant: 'merchants', card: 'cards', check: 'check-ins' })[k];

/** A demo login that would collide with an existing account; null when there is none. */
export async function loginConflict(db: Executor, usernames: string[], mobiles: string[]): Promise<string | null> {
  const users = await takenUsernames(db, usernames);
  if (users.length) return `staff account(s) ${users.join(', ')} already exist`;
  const checkers = await takenCheckerMobiles(db, mobiles);
  if (checkers.length) return `active verifier(s) with mobile ${checkers.join(', ')} already exist`;
  return null;
}

import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/types.js';

/** What a repository function runs on: the database, or the service's open transaction. */
export type Executor = Kysely<DB> | Transaction<DB>;

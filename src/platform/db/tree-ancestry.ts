import { sql } from 'kysely';
import type { DB } from '../../db/types.js';
import type { Executor } from './executor.js';

/** A table whose rows form a tree through a parent column (0 or null at the top). */
export interface TreeTable {
  table: keyof DB & string;
  id?: string;
  parent?: string;
}

// Arbitrary, fixed: the first key of the two-key advisory locks that serialise moves within one tree.
const TREE_MOVE_LOCK_CLASS = 7_316_001;

/**
 * Whether `candidate` is `nodeId` itself or one of its ancestors, however deep the tree. The walk up
 * is one recursive query; UNION (not UNION ALL) drops rows already seen, so it ends even on rows that
 * already form a loop.
 */
export async function isSelfOrAncestor(
  db: Executor,
  tree: TreeTable,
  candidate: number,
  nodeId: number,
): Promise<boolean> {
  const t = sql.table(tree.table);
  const id = sql.ref(tree.id ?? 'id');
  const parent = sql.ref(tree.parent ?? 'parent_id');
  const r = await sql<{ hit: boolean }>`
    with recursive up(node, up_to) as (
      select ${id}, ${parent} from ${t} where ${id} = ${nodeId}
      union
      select ${id}, ${parent} from ${t} join up on ${id} = up.up_to
    )
    select exists(select 1 from up where node = ${candidate}) as hit`.execute(db);
  return r.rows[0]?.hit === true;
}

/**
 * Serialises re-parenting within one tree until the transaction ends. Without it two moves that are
 * each fine alone (A under B, B under A) could commit together and make a loop.
 */
export async function lockTreeMoves(trx: Executor, tree: TreeTable): Promise<void> {
  await sql`select pg_advisory_xact_lock(${TREE_MOVE_LOCK_CLASS}, hashtext(${tree.table}))`.execute(trx);
}

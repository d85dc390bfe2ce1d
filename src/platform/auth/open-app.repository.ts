import type { Executor } from '../db/executor.js';

export interface OpenApp {
  id: number;
  appKey: string;
  appSecret: string;
  name: string;
  status: number;
}

export async function findOpenAppByKey(db: Executor, appKey: string): Promise<OpenApp | null> {
  const r = await db
    .selectFrom('open_app')
    .select(['id', 'app_key', 'app_secret', 'name', 'status'])
    .where('app_key', '=', appKey)
    .executeTakeFirst();
  return r ? { id: r.id, appKey: r.app_key, appSecret: r.app_secret, name: r.name, status: r.status } : null;
}

/** Creates the app, or updates its secret and re-enables it: OPEN_APP_KEY/SECRET are the truth at start. */
export async function upsertOpenApp(
  db: Executor,
  app: { appKey: string; appSecret: string; name: string },
): Promise<void> {
  await db
    .insertInto('open_app')
    .values({ app_key: app.appKey, app_secret: app.appSecret, name: app.name, status: 1 })
    .onConflict((oc) =>
      oc.column('app_key').doUpdateSet({ app_secret: app.appSecret, status: 1, updated_at: new Date() }),
    )
    .execute();
}

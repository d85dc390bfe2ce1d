/**
 * What a database's client backends were doing while a bench's work ran, sampled every 50 ms from
 * pg_stat_activity: running (CPU) or the wait event they were in. Tells a rate limited by the server's
 * WAL flushes or locks from one limited by the service.
 */
import pg from 'pg';

/** `serverUrl`: any database of the server (its connection samples; the sampler's own is left out). */
export async function backendStates<T>(
  serverUrl: string,
  database: string,
  work: () => Promise<T>,
): Promise<{ result: T; states: Map<string, number> }> {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  const states = new Map<string, number>();
  let running = true;
  const sampling = (async () => {
    while (running) {
      const r = await c.query<{ s: string }>(
        `select coalesce(wait_event_type || ':' || wait_event, 'CPU') as s from pg_stat_activity
        where datname = $1 and state = 'active' and backend_type = 'client backend' and pid <> pg_backend_pid()`,
        [database],
      );
      for (const { s } of r.rows) states.set(s, (states.get(s) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    return { result: await work(), states };
  } finally {
    running = false;
    await sampling;
    await c.end();
  }
}

/** The four most sampled states with their shares, e.g. `CPU 60%, IO:WalSync 30%`. */
export function shares(states: Map<string, number>): string {
  const total = [...states.values()].reduce((a, b) => a + b, 0) || 1;
  return [...states]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([k, n]) => `${k} ${((100 * n) / total).toFixed(0)}%`)
    .join(', ');
}

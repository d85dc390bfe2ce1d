import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { adminUrl } from '../helpers/global-setup.js';
import { freePort } from '../helpers/free-port.js';
import { startProcess, stopProcess, waitReady, type Started } from '../helpers/processes.js';

const url = process.env.DATABASE_URL || null;
const TRIALS = 3;
const started: Started[] = [];
const scratch = mkdtempSync(path.join(tmpdir(), 'two-instances-'));

afterAll(async () => {
  await Promise.all(started.map(stopProcess));
  rmSync(scratch, { recursive: true, force: true });
});

/** Two real server processes started at the same moment on one fresh, empty PostgreSQL database. */
async function trial(n: number) {
  const name = `hard_two_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url! });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const pair: Started[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const env = {
        ...process.env,
        DATABASE_URL: adminUrl(url!, name),
        REDIS_URL: '',
        PORT: String(port),
        DATA_DIR: path.join(scratch, `t${n}-${i}`),
        ADMIN_PASSWORD: 'Admin@TwoInstances1',
        LOG_LEVEL: 'warn',
        NODE_ENV: 'development',
      };
      pair.push(startProcess(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: process.cwd(), env, port }));
    }
    started.push(...pair);
    const ready = await Promise.all(pair.map((p) => waitReady(p, 150_000)));
    return { ready, outputs: pair.map((p) => p.output()), name, pair, admin };
  } catch (err) {
    await admin.end();
    throw err;
  }
}

describe.runIf(url)('two instances starting at once on an empty database', () => {
  it(`both come up, ${TRIALS} trials out of ${TRIALS}`, async () => {
    for (let n = 0; n < TRIALS; n++) {
      const { ready, outputs, name, pair, admin } = await trial(n);
      try {
        expect(ready, outputs.join('\n----\n')).toEqual([true, true]);
        const db = new pg.Client({ connectionString: adminUrl(url!, name) });
        await db.connect();
        const regions = await db.query('select count(*)::int as n from region');
        const admins = await db.query('select count(*)::int as n from admin_user');
        await db.end();
        expect(regions.rows[0].n).toBeGreaterThan(3000);
        expect(admins.rows[0].n).toBe(1);
        // exactly one of them seeded
        expect(outputs.filter((o) => /Seeded \d+ regions/.test(o))).toHaveLength(1);
      } finally {
        await Promise.all(pair.map(stopProcess));
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.end();
      }
    }
  }, 900_000);
});

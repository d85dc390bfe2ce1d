import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// The database and store are pointed at nothing either way: the suite on PostgreSQL would repeat it.
describe.skipIf(process.env.DATABASE_URL)('npm run openapi', () => {
  it('`npm run openapi` prints the document without opening a database', async () => {
    const child = spawn('npm', ['run', 'openapi'], {
      cwd: process.cwd(),
      env: {
        ...process.env,
        DATABASE_URL: 'postgres://postgres@127.0.0.1:1/unreachable',
        REDIS_URL: 'redis://127.0.0.1:1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    const doc = JSON.parse(out.slice(out.indexOf('{')));
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/manage-api/region/addRegion']).toBeDefined();
  });
});

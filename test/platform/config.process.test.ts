import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('the process', () => {
  it('exits 1 with exactly one line on stderr naming PORT when PORT=abc', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: 'abc', DATA_DIR: '/nonexistent/never-created' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => (stdout += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    const lines = stderr.split('\n').filter((l) => l.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/PORT/);
    expect(lines[0]).toMatch(/abc/);
    expect(stdout).toBe('');
  });
});

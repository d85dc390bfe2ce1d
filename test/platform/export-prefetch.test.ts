import { describe, expect, it } from 'vitest';
import { readAhead } from '../../src/platform/export/prefetch.js';

/** readAhead: the next keyset batch is read while the current one is being written. */
interface Row {
  id: number;
}
const ROWS: Row[] = Array.from({ length: 10 }, (_, i) => ({ id: i + 1 }));

function source() {
  const calls: Array<number | null> = [];
  let failAfter: number | null = null;
  const read = async (after: Row | null, limit: number): Promise<Row[]> => {
    calls.push(after?.id ?? null);
    if (failAfter !== null && after?.id === failAfter) throw new Error('read failed');
    const start = after ? ROWS.findIndex((r) => r.id === after.id) + 1 : 0;
    return ROWS.slice(start, start + limit);
  };
  return { read, calls, failAt: (id: number) => (failAfter = id) };
}

describe('readAhead', () => {
  it('answers the same batches as the plain read, starting each next read before it is asked for', async () => {
    const s = source();
    const batches = readAhead(s.read);
    const first = await batches(null, 4);
    expect(first.map((r) => r.id)).toEqual([1, 2, 3, 4]);
    // The read after row 4 already started.
    expect(s.calls).toEqual([null, 4]);
    const second = await batches(first[3], 4);
    expect(second.map((r) => r.id)).toEqual([5, 6, 7, 8]);
    expect(s.calls).toEqual([null, 4, 8]);
    const third = await batches(second[3], 4);
    expect(third.map((r) => r.id)).toEqual([9, 10]);
    // A short batch is the last: nothing more is read.
    expect(s.calls).toEqual([null, 4, 8]);
  });

  it('reads afresh when asked for another position or size than the one read ahead', async () => {
    const s = source();
    const batches = readAhead(s.read);
    await batches(null, 3);
    expect((await batches(ROWS[0], 3)).map((r) => r.id)).toEqual([2, 3, 4]);
    expect((await batches(ROWS[3], 2)).map((r) => r.id)).toEqual([5, 6]);
  });

  it('surfaces a failed read-ahead when its batch is asked for, and never as an unhandled rejection before', async () => {
    const s = source();
    s.failAt(4);
    const batches = readAhead(s.read);
    const first = await batches(null, 4);
    await new Promise((r) => setImmediate(r));
    await expect(batches(first[3], 4)).rejects.toThrow('read failed');
  });
});

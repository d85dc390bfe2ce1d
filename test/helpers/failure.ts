/** The envelope every dependency failure answers (docs/errors.md): 503, logged as a warning. */
export const UNAVAILABLE = { httpStatus: 503, errcode: 503, errmsg: 'service temporarily unavailable', log: 'warn' };

/** The error `p` fails with and how long it took to fail; throws when `p` succeeds. */
export async function failure(p: Promise<unknown>): Promise<{ err: unknown; ms: number }> {
  const t0 = performance.now();
  try {
    await p;
  } catch (err) {
    return { err, ms: performance.now() - t0 };
  }
  throw new Error('expected a failure');
}

/**
 * The allocation split (docs/domain.md §2): part i gets ⌊total × wᵢ ÷ W⌋, and the cents left over go one
 * each to the parts with the largest remainders, ties to the lower id. Σ shares = total exactly;
 * W = 0 gives every part 0 (the total stays undistributed). BigInt throughout: total × wᵢ can pass 2^53.
 */
export interface SplitPart {
  id: number;
  weight: number;
}

export function largestRemainderSplit(total: bigint, parts: readonly SplitPart[]): bigint[] {
  if (total < 0n) throw new RangeError('total must not be negative');
  const weights = parts.map((p) => {
    if (!Number.isSafeInteger(p.weight) || p.weight < 0)
      throw new RangeError(`weight of ${p.id} must be a whole number ≥ 0`);
    return BigInt(p.weight);
  });
  const sum = weights.reduce((a, b) => a + b, 0n);
  if (sum === 0n) return parts.map(() => 0n);
  const shares = weights.map((w) => (total * w) / sum);
  const remainders = weights.map((w) => (total * w) % sum);
  let left = total - shares.reduce((a, b) => a + b, 0n);
  const order = parts
    .map((_, i) => i)
    .sort((a, b) =>
      remainders[a] === remainders[b] ? parts[a].id - parts[b].id : remainders[b] > remainders[a] ? 1 : -1,
    );
  // left < number of parts, since each floor loses less than one cent.
  for (let k = 0; left > 0n; k++, left--) shares[order[k]] += 1n;
  return shares;
}

/** wᵢ as a percent of W with four decimals, rounded half up, as exact text ("33.3333"); "0.0000" when W = 0. */
export function percentText(weight: number, sum: number): string {
  if (sum <= 0) return '0.0000';
  const w = BigInt(weight);
  const s = BigInt(sum);
  // in units of 0.0001 %: w × 10^6 ÷ s, rounded half up
  const units = (w * 2_000_000n + s) / (2n * s);
  return `${units / 10_000n}.${String(units % 10_000n).padStart(4, '0')}`;
}

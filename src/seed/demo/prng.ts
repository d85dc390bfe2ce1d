/**
 * Seeded pseudo-random numbers for the demo generator: sfc32 (Chris Doty-Humphrey's Small Fast
 * Counter, 128-bit state) seeded through splitmix32. Only 32-bit integer arithmetic (Math.imul, >>>),
 * so the same seed gives the same numbers on every platform and Node version.
 *
 * Every independent part of the data set (a day of check-ins, a person, a card) draws from its own
 * stream, `new Rng(seed, partTag, index)`, so adding or changing one part never shifts another.
 */

/** splitmix32 step: a well-mixed 32-bit value from any 32-bit input. */
export function mix32(x: number): number {
  let z = (x + 0x9e3779b9) | 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** Combines a seed and stream tags into one 32-bit key. */
export function hashKey(seed: number, ...tags: number[]): number {
  let h = mix32(seed >>> 0);
  for (const t of tags) h = mix32((h ^ mix32(t >>> 0) ^ Math.floor(t / 4294967296)) >>> 0);
  return h;
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number, ...tags: number[]) {
    const k = hashKey(seed, ...tags);
    this.a = mix32(k);
    this.b = mix32(k ^ 0x6a09e667);
    this.c = mix32(k ^ 0xbb67ae85);
    this.d = 1;
  }

  /** Next unsigned 32-bit integer. */
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform integer in [lo, hi] (both inclusive). */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Index drawn from cumulative weights (ascending, last = total). */
  pickCumulative(cumulative: ArrayLike<number>): number {
    return searchCumulative(cumulative, this.next() * cumulative[cumulative.length - 1]);
  }
}

/** The first index i with cumulative[i] > u (cumulative ascending). */
export function searchCumulative(cumulative: ArrayLike<number>, u: number): number {
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cumulative[mid] > u) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export function cumulate(weights: readonly number[]): number[] {
  let sum = 0;
  return weights.map((w) => (sum += w));
}

/**
 * Splits `total` into integer parts proportional to `weights` whose sum is exactly `total`
 * (cumulative rounding, so no part drifts by more than one).
 */
export function apportion(total: number, weights: ArrayLike<number>): number[] {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += weights[i];
  const parts = new Array<number>(weights.length).fill(0);
  if (sum <= 0 || total <= 0) return parts;
  let acc = 0;
  let given = 0;
  for (let i = 0; i < weights.length; i++) {
    acc += weights[i];
    const upTo = i === weights.length - 1 ? total : Math.round((total * acc) / sum);
    parts[i] = upTo - given;
    given = upTo;
  }
  return parts;
}

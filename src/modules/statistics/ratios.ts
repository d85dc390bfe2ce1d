/**
 * Ratios answered with two decimals, rounded half up from the integers they are made of: rounding
 * the float quotient first (23 ÷ 40 = 0.575 is 0.57499… as a double) turned some halves down.
 */
export const hundredths = (n: number, total: number): number => (total === 0 ? 0 : Math.round((n * 100) / total) / 100);

/** n ÷ total × 100, two decimals (0 when there is no total). */
export const percent = (n: number, total: number): number => hundredths(n * 100, total);

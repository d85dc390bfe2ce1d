import { describe, expect, it } from 'vitest';
import { normaliseIdNumber } from '../../src/platform/id-document.js';

describe('the stored form of a document number', () => {
  it('is trimmed and upper-cased, with full-width forms folded (as a Chinese input method types them)', () => {
    expect(normaliseIdNumber(' 11010519491231002x ')).toBe('11010519491231002X');
    expect(normaliseIdNumber('１１０１０５１９４９１２３１００２ｘ')).toBe('11010519491231002X');
    expect(normaliseIdNumber('g24-463517')).toBe('G24-463517');
  });
});

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sniffFile } from '../../src/platform/storage/sniff.js';
import { FACE_JPEG, facePng } from '../platform/face-images.js';
import { pdfBytes } from './storage-fixtures.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tc-sniff-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function sniff(bytes: Uint8Array, name = 'x') {
  const file = path.join(dir, String(++n));
  writeFileSync(file, bytes);
  return sniffFile(file, name);
}
// An OLE2 compound file header (the container of .doc/.xls/.ppt and of .msi installers).
const CFB = Buffer.concat([Buffer.from('d0cf11e0a1b11ae1', 'hex'), Buffer.alloc(504)]);

describe('content sniffing', () => {
  it('tells formats by their bytes, whatever the name says', async () => {
    expect(await sniff(FACE_JPEG, 'a.png')).toEqual({ mime: 'image/jpeg', ext: 'jpg' });
    expect(await sniff(facePng(70, 70), 'a.jpg')).toEqual({ mime: 'image/png', ext: 'png' });
    expect(await sniff(pdfBytes(3000), 'a.txt')).toEqual({ mime: 'application/pdf', ext: 'pdf' });
  });

  it('reads UTF-8 text as plain text (CSV by its name), and markup, scripts and binary noise as not text', async () => {
    expect(await sniff(Buffer.from('\uFEFF名称\t金额\r\n门票\t100\n'), 'a.txt')).toEqual({
      mime: 'text/plain',
      ext: 'txt',
    });
    expect(await sniff(Buffer.from('a,b\n1,2\n'), 'A.CSV')).toEqual({ mime: 'text/csv', ext: 'csv' });
    expect(await sniff(Buffer.from('  <html><body>x</body></html>'), 'a.txt')).toEqual({
      mime: 'text/html',
      ext: 'html',
    });
    expect(await sniff(Buffer.from('#!/usr/bin/env node\n'), 'a.txt')).toEqual({ mime: 'text/x-script', ext: 'sh' });
    expect(await sniff(Buffer.from('abc\u0000def'), 'a.txt')).toBeNull();
    expect(await sniff(randomBytes(10_000), 'a.txt')).toBeNull();
    expect(await sniff(Buffer.alloc(0), 'a.txt')).toBeNull();
    // a multi-byte character cut by the 8 KiB sample is still text
    expect(await sniff(Buffer.from('汉'.repeat(5000)), 'a.txt')).toEqual({ mime: 'text/plain', ext: 'txt' });
  });

  it('takes a compound file for a legacy Office file only when its name says so', async () => {
    expect(await sniff(CFB, 'budget.xls')).toEqual({ mime: 'application/vnd.ms-excel', ext: 'xls' });
    expect(await sniff(CFB, 'setup.msi')).toEqual({ mime: 'application/x-cfb', ext: 'cfb' });
  });
});

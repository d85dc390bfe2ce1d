import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ExcelJS from 'exceljs';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { XLSX_FILE, XlsxExport } from '../../src/platform/export/xlsx-export.js';
import { centsToYuanText, escapeXml } from '../../src/platform/export/xlsx-writer.js';
import { defineRoute } from '../../src/platform/http/routes.js';
import { AppError } from '../../src/platform/errors.js';
import { Opt } from '../../src/platform/http/schemas.js';
import { buildProbeApp } from '../helpers/platform-fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

interface Row {
  id: number;
  name: string;
  cents: number;
  at: Date;
}

const ROWS: Row[] = Array.from({ length: 23 }, (_, i) => ({
  id: i + 1,
  name: i === 3 ? '=HYPERLINK("http://evil")' : i === 4 ? 'a < b & "c"\u0001' : `景区 ${i + 1}`,
  cents: i * 1001 - 500,
  at: new Date(2026, 4, 1 + (i % 28), 8, 30, 5),
}));

let t: TestApp;
let probe: FastifyInstance;
let token: string;
const completed: number[] = [];

beforeAll(async () => {
  t = await createTestApp();
  token = (await t.loginStaff()).accessToken;
  probe = await buildProbeApp(t, [
    defineRoute({
      method: 'ANY',
      path: '/probe/export',
      channels: ['manage'],
      auth: { kinds: ['admin'] },
      permission: 'probe:export',
      summary: 'probe',
      tags: ['probe'],
      response: 'file',
      file: XLSX_FILE,
      body: Type.Object({ failAtBatch: Opt(Type.Integer()), batchSize: Opt(Type.Integer({ minimum: 1 })) }),
      handler: async (_ctx, { body }) =>
        new XlsxExport<Row>({
          fileName: '分配明细 2026-05.xlsx',
          sheetName: '明细',
          batchSize: body.batchSize ?? 5,
          columns: [
            { header: 'ID', kind: 'integer', value: (r) => r.id },
            { header: '景区', value: (r) => r.name, width: 24 },
            { header: '金额(元)', kind: 'money', value: (r) => r.cents, total: true },
            { header: '时间', kind: 'datetime', value: (r) => r.at },
          ],
          totalRow: '合计',
          batches: async (after, limit) => {
            const start = after ? ROWS.findIndex((r) => r.id === after.id) + 1 : 0;
            if (
              body.failAtBatch !== undefined &&
              body.failAtBatch !== null &&
              Math.floor(start / limit) === body.failAtBatch
            ) {
              throw new AppError(404, 'injected failure in a batch');
            }
            return ROWS.slice(start, start + limit);
          },
          onComplete: async (n) => {
            completed.push(n);
          },
        }),
    }),
  ]);
});
afterAll(async () => {
  await probe?.close();
  await t?.close();
});

async function readBack(buffer: Buffer) {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(buffer as unknown as ArrayBuffer);
  return wb.getWorksheet('明细')!;
}

describe('streamed xlsx export', () => {
  it('answers a whole workbook: bold header, rows in order, money in yuan with two decimals, wire dates, a total row', async () => {
    const res = await probe.inject({
      method: 'POST',
      url: '/manage-api/probe/export',
      payload: {},
      headers: { authorization: token },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="____ 2026-05.xlsx"; filename*=UTF-8''${encodeURIComponent('分配明细 2026-05.xlsx')}`,
    );
    const ws = await readBack(res.rawPayload);
    expect(ws.rowCount).toBe(1 + ROWS.length + 1);
    expect(ws.getRow(1).values).toEqual([undefined, 'ID', '景区', '金额(元)', '时间']);
    expect(ws.getRow(1).getCell(1).font?.bold).toBe(true);
    ROWS.forEach((r, i) => {
      const row = ws.getRow(i + 2);
      expect(row.getCell(1).value).toBe(r.id);
      expect(row.getCell(3).value).toBe(r.cents / 100);
      expect(row.getCell(3).numFmt).toBe('0.00');
      expect(row.getCell(4).value).toBe(`2026-05-${String(1 + (i % 28)).padStart(2, '0')} 08:30:05`);
    });
    // Text is text: a formula-looking name is not a formula, and XML specials survive (control characters do not).
    expect(ws.getRow(5).getCell(2).value).toBe('=HYPERLINK("http://evil")');
    expect(ws.getRow(6).getCell(2).value).toBe('a < b & "c"');
    const total = ws.getRow(ROWS.length + 2);
    expect(total.getCell(1).value).toBe('合计');
    expect(total.getCell(3).value).toBe(ROWS.reduce((s, r) => s + r.cents, 0) / 100);
    expect(completed.at(-1)).toBe(ROWS.length + 1);
  });

  it('serves the same export to GET with the parameters in the query string', async () => {
    const res = await probe.inject({
      method: 'GET',
      url: '/manage-api/probe/export?batchSize=7',
      headers: { authorization: token },
    });
    expect(res.statusCode).toBe(200);
    expect((await readBack(res.rawPayload)).rowCount).toBe(ROWS.length + 2);
  });

  it('answers the error envelope when the first batch already fails', async () => {
    const res = await probe.inject({
      method: 'POST',
      url: '/manage-api/probe/export',
      payload: { failAtBatch: 0 },
      headers: { authorization: token },
    });
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.json()).toEqual({ errcode: 404, errmsg: 'injected failure in a batch' });
    expect(res.headers['content-disposition']).toBeUndefined();
  });

  it('breaks the connection when a later batch fails, so no truncated file looks whole', async () => {
    const before = completed.length;
    const address = await probe.listen({ port: 0, host: '127.0.0.1' });
    const res = await fetch(`${address}/manage-api/probe/export`, {
      method: 'POST',
      headers: { authorization: token, 'content-type': 'application/json' },
      body: JSON.stringify({ failAtBatch: 2, batchSize: 2 }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('attachment');
    await expect(res.arrayBuffer()).rejects.toThrow();
    expect(completed.length).toBe(before);
  });
});

describe('xlsx text and money', () => {
  it('writes cents as exact yuan text', () => {
    expect([0, 5, 100, 12345, -1, -250, 10 ** 15 + 7].map(centsToYuanText)).toEqual([
      '0.00',
      '0.05',
      '1.00',
      '123.45',
      '-0.01',
      '-2.50',
      '10000000000000.07',
    ]);
  });

  it('drops characters XML cannot carry and escapes the special ones', () => {
    expect(escapeXml('a\u0000b\u001fc & <d> "e" \ud800 \u{1F600}')).toBe(
      'abc &amp; &lt;d&gt; &quot;e&quot;  \u{1F600}',
    );
  });
});

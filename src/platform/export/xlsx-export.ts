import type { FastifyReply } from 'fastify';
import { contentDisposition } from '../http/responses.js';
import type { CellKind } from './xlsx-writer.js';
import type { FileDoc } from '../http/routes.js';

export const XLSX_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** What an export route answers, for the OpenAPI document (`file` of its route). */
export const XLSX_FILE: FileDoc = {
  mediaTypes: [XLSX_CONTENT_TYPE],
  description: 'An .xlsx workbook, streamed',
  headers: {
    'Content-Disposition': {
      description: "attachment; filename=\"…\"; filename*=UTF-8''… (the file's name)",
      required: true,
    },
  },
};

export interface ExportColumn<R> {
  header: string;
  kind?: CellKind;
  width?: number;
  value: (row: R) => unknown;
  /** summed into the total row (integers or money cents) */
  total?: boolean;
}

export interface XlsxExportSpec<R> {
  /** shown to the user; non-ASCII names travel as RFC 5987 `filename*` */
  fileName: string;
  sheetName?: string;
  columns: ExportColumn<R>[];
  /**
   * Keyset reads: the rows after `after` (null for the first batch), at most `limit`, in a stable
   * order. PGlite cannot stream a cursor, so every backend reads in batches.
   */
  batches: (after: R | null, limit: number) => Promise<R[]>;
  batchSize?: number;
  /** a last row with this label in the first column and the sums of the `total` columns */
  totalRow?: string;
  /** runs once the whole file has reached the client (e.g. mark an allocation batch exported) */
  onComplete?: (rows: number) => Promise<void>;
}

/**
 * A streamed .xlsx answer (docs/architecture.md §5.8: raw bytes, an envelope only on failure). Handlers return
 * it; the route pipeline calls `send`. The first batch is read before anything is sent, so a query
 * that fails at once still answers the error envelope; a failure after the first byte destroys the
 * connection, so the client sees a broken transfer rather than a truncated file that looks whole.
 */
export class XlsxExport<R = unknown> {
  constructor(readonly spec: XlsxExportSpec<R>) {}

  async send(reply: FastifyReply): Promise<void> {
    const { spec } = this;
    const limit = spec.batchSize ?? 5000;
    // Loaded on the first export: the zip writer (archiver and its dependencies) held ~2 MB of heap
    // in every process, most of which never export. Awaited before the reply is taken over, so a
    // failure still answers the error envelope.
    const writerModule = import('./xlsx-writer.js');
    writerModule.catch(() => {}); // awaited below; a failed first read must not leave it unhandled
    let batch = await spec.batches(null, limit);
    const { XlsxStreamWriter } = await writerModule;

    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': XLSX_CONTENT_TYPE,
      'content-disposition': contentDisposition(spec.fileName),
      'cache-control': 'no-store',
    });
    res.flushHeaders();
    const writer = new XlsxStreamWriter(
      res,
      spec.columns.map((c) => ({ header: c.header, kind: c.kind ?? 'text', width: c.width })),
      spec.sheetName,
    );
    const totals = spec.columns.map(() => 0n);
    let clientGone = false;
    res.on('close', () => {
      if (!res.writableFinished) clientGone = true;
    });
    try {
      while (batch.length > 0 && !clientGone) {
        // The next read runs while this batch is written: the database and the writer overlap.
        const next = batch.length < limit ? null : spec.batches(batch[batch.length - 1], limit);
        next?.catch(() => {}); // awaited below; a client gone meanwhile must not leave it unhandled
        const values = batch.map((row) =>
          spec.columns.map((c, i) => {
            const v = c.value(row);
            if (c.total && v !== null && v !== undefined) totals[i] += BigInt(v as number);
            return v;
          }),
        );
        await writer.writeRows(values);
        if (!next) break;
        batch = await next;
      }
      if (clientGone) throw new Error('the client went away during the export');
      if (spec.totalRow !== undefined) {
        await writer.writeRows([spec.columns.map((c, i) => (i === 0 ? spec.totalRow : c.total ? totals[i] : null))]);
      }
      await writer.finish();
    } catch (err) {
      writer.abort();
      res.destroy();
      reply.log.warn({ err, rows: writer.rowsWritten }, 'export aborted');
      return;
    }
    if (spec.onComplete) {
      await spec
        .onComplete(writer.rowsWritten)
        .catch((err: unknown) => reply.log.error({ err }, 'export completed but its follow-up failed'));
    }
  }
}

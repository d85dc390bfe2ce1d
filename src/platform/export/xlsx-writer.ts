import { once } from 'node:events';
import { PassThrough, type Writable } from 'node:stream';
import archiver from 'archiver';
import { formatDateTime } from '../time.js';

/**
 * How a column's values are written: text (inline strings: never evaluated as formulas), whole
 * numbers, decimals, integer cents shown as yuan with two decimals, or dates in the wire format.
 */
export type CellKind = 'text' | 'integer' | 'decimal' | 'money' | 'datetime';

export interface XlsxColumn {
  header: string;
  kind: CellKind;
  /** characters */
  width?: number;
}

// cellXfs indexes in STYLES: 0 plain, 1 two decimals (built-in numFmt 2 "0.00"), 2 bold header.
const STYLE_MONEY = 1;
const STYLE_HEADER = 2;

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`;
const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`;
const WORKBOOK_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`;
const STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="3"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="2" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/></cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`;

// Characters XML 1.0 cannot carry at all; stored text may hold them even though input refuses them.
const XML_INVALID =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const XML_SPECIAL = /[&<>"]/g;
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

// Most text needs no change at all: one scan decides, and the two replaces run only when needed.
const NEEDS_WORK = /[&<>"\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;

export function escapeXml(text: string): string {
  if (!NEEDS_WORK.test(text)) return text;
  return text.replace(XML_INVALID, '').replace(XML_SPECIAL, (c) => ENTITIES[c]);
}

/** Integer cents as an exact decimal text of yuan (no binary floating point on the way). */
export function centsToYuanText(cents: number | bigint): string {
  if (typeof cents === 'number' && Number.isSafeInteger(cents)) {
    const abs = Math.abs(cents);
    const fraction = abs % 100;
    return `${cents < 0 ? '-' : ''}${(abs - fraction) / 100}.${fraction < 10 ? '0' : ''}${fraction}`;
  }
  const n = BigInt(cents);
  const negative = n < 0n;
  const abs = negative ? -n : n;
  return `${negative ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

function columnName(index: number): string {
  let n = index + 1;
  let name = '';
  while (n > 0) {
    const rem = (n - 1) % 26;
    name = String.fromCharCode(65 + rem) + name;
    n = Math.floor((n - 1) / 26);
  }
  return name;
}

// Every cell carries its reference (A2, B2 …): optional in SpreadsheetML, but readers such as exceljs
// require it, and clients re-import these files. A blank value writes no cell at all.
function textCell(ref: string, text: string, style = 0): string {
  return `<c r="${ref}" t="inlineStr"${style ? ` s="${style}"` : ''}><is><t xml:space="preserve">${escapeXml(text)}</t></is></c>`;
}

function cell(ref: string, kind: CellKind, value: unknown): string {
  if (value === null || value === undefined || value === '') return '';
  switch (kind) {
    case 'integer':
    case 'decimal': {
      const n = typeof value === 'number' ? value : Number(value);
      return Number.isFinite(n) ? `<c r="${ref}"><v>${n}</v></c>` : textCell(ref, String(value));
    }
    case 'money':
      return `<c r="${ref}" s="${STYLE_MONEY}"><v>${centsToYuanText(value as number)}</v></c>`;
    case 'datetime':
      return textCell(ref, value instanceof Date ? formatDateTime(value)! : String(value));
    default:
      return textCell(ref, String(value));
  }
}

/**
 * A one-sheet .xlsx written as a stream: the sheet XML is produced row by row into a zip entry that
 * archiver deflates straight into `out`, so memory stays flat whatever the row count. Writes wait
 * for the consumer (backpressure reaches the database reads through `writeRows`).
 */
export class XlsxStreamWriter {
  // Level 1: the XML deflates well even so, and deflate is most of an export's CPU (measured: +25% rows/s over 6).
  private readonly zip = archiver('zip', { zlib: { level: 1 } });
  private readonly sheet = new PassThrough({ highWaterMark: 256 * 1024 });
  private readonly letters: string[];
  private rowNumber = 0;
  private readonly done: Promise<void>;

  constructor(
    out: Writable,
    private readonly columns: XlsxColumn[],
    sheetName = 'Sheet1',
  ) {
    this.letters = columns.map((_, i) => columnName(i));
    this.done = new Promise<void>((resolve, reject) => {
      this.zip.on('error', reject);
      out.on('error', reject);
      out.on('finish', resolve);
      out.on('close', () => reject(new Error('the output closed before the file was complete')));
    });
    this.done.catch(() => {}); // awaited by finish(); aborts must not surface as unhandled
    this.zip.pipe(out);
    this.zip.append(CONTENT_TYPES, { name: '[Content_Types].xml' });
    this.zip.append(ROOT_RELS, { name: '_rels/.rels' });
    this.zip.append(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="${escapeXml(sheetName.slice(0, 31))}" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      { name: 'xl/workbook.xml' },
    );
    this.zip.append(WORKBOOK_RELS, { name: 'xl/_rels/workbook.xml.rels' });
    this.zip.append(STYLES, { name: 'xl/styles.xml' });
    this.zip.append(this.sheet, { name: 'xl/worksheets/sheet1.xml' });
    const cols = columns
      .map((c, i) => `<col min="${i + 1}" max="${i + 1}" width="${c.width ?? 16}" customWidth="1"/>`)
      .join('');
    const header = columns.map((c, i) => textCell(`${this.letters[i]}1`, c.header, STYLE_HEADER)).join('');
    this.rowNumber = 1;
    this.sheet.write(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><cols>${cols}</cols><sheetData><row r="1">${header}</row>`,
    );
  }

  /** Appends rows (one value per column, in column order), waiting while the consumer is behind. */
  async writeRows(rows: readonly (readonly unknown[])[]): Promise<void> {
    const kinds = this.columns.map((c) => c.kind);
    const letters = this.letters;
    let chunk = '';
    let pending = true;
    for (let n = 0; n < rows.length; n++) {
      const values = rows[n];
      const r = ++this.rowNumber;
      chunk += `<row r="${r}">`;
      for (let i = 0; i < kinds.length; i++) chunk += cell(letters[i] + r, kinds[i], values[i]);
      chunk += '</row>';
      // Hand over a few hundred rows at a time: short strings are cheaper to encode and collect.
      if (n % 256 === 255) {
        pending = this.sheet.write(chunk);
        chunk = '';
      }
    }
    if (chunk) pending = this.sheet.write(chunk);
    if (!pending) await Promise.race([once(this.sheet, 'drain'), this.done]);
  }

  get rowsWritten(): number {
    return this.rowNumber - 1;
  }

  /** Closes the sheet and the zip; resolves once `out` has received the whole file. */
  async finish(): Promise<void> {
    this.sheet.end('</sheetData></worksheet>');
    await this.zip.finalize();
    await this.done;
  }

  /** Stops writing; the output is left incomplete (the caller destroys it so nobody takes it as whole). */
  abort(): void {
    this.sheet.destroy();
    this.zip.abort();
  }
}

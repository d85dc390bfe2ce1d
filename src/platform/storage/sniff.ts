import { open } from 'node:fs/promises';
import { fileTypeFromFile } from 'file-type';

/** A file's type as its content shows it: the content type stored and served, and a short extension. */
export interface SniffedType {
  mime: string;
  ext: string;
}

const TEXT_SAMPLE = 8 * 1024;

// The legacy Office formats share one container (CFB) with MSI installers and others: only the
// name can tell them apart, so a CFB file counts as an Office file only when its name says so.
const CFB_BY_EXTENSION: Record<string, string> = {
  doc: 'application/msword',
  xls: 'application/vnd.ms-excel',
  ppt: 'application/vnd.ms-powerpoint',
};

const extensionOf = (fileName: string) => /\.([A-Za-z0-9]{1,8})$/.exec(fileName)?.[1]?.toLowerCase() ?? '';

async function readSample(filePath: string): Promise<Buffer> {
  const handle = await open(filePath, 'r');
  try {
    const buf = Buffer.alloc(TEXT_SAMPLE);
    const { bytesRead } = await handle.read(buf, 0, TEXT_SAMPLE, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** UTF-8 text without control characters (tab, line breaks and form feed aside) in its first 8 KiB. */
function textType(sample: Buffer, fileName: string, whole: boolean): SniffedType | null {
  const bytes = sample;
  // The sample may end inside a multi-byte character; drop at most 3 bytes of it.
  for (let cut = 0; cut <= (whole ? 0 : 3); cut++) {
    const candidate = bytes.subarray(0, bytes.length - cut);
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(candidate);
    } catch {
      continue;
    }
    if (/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(text)) return null;
    const start = text.replace(/^\uFEFF/, '').trimStart();
    // Markup (HTML, SVG, XML) and scripts are active content, never plain text.
    if (start.startsWith('<')) return { mime: 'text/html', ext: 'html' };
    if (start.startsWith('#!')) return { mime: 'text/x-script', ext: 'sh' };
    return extensionOf(fileName) === 'csv' ? { mime: 'text/csv', ext: 'csv' } : { mime: 'text/plain', ext: 'txt' };
  }
  return null;
}

/**
 * The type of a file from its bytes (magic numbers through `file-type`, then a UTF-8 text check);
 * null when it is neither a known binary format nor text. The name is consulted only to tell
 * apart formats whose bytes are the same (legacy Office files, CSV).
 */
export async function sniffFile(filePath: string, fileName: string): Promise<SniffedType | null> {
  const found = await fileTypeFromFile(filePath);
  if (found) {
    if (found.ext === 'cfb') {
      const ext = extensionOf(fileName);
      return CFB_BY_EXTENSION[ext] ? { mime: CFB_BY_EXTENSION[ext], ext } : { mime: found.mime, ext: found.ext };
    }
    return { mime: found.mime, ext: found.ext };
  }
  const sample = await readSample(filePath);
  if (sample.length === 0) return null;
  return textType(sample, fileName, sample.length < TEXT_SAMPLE);
}

/** Images a face check accepts. */
export const FACE_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png']);

/**
 * What general uploads accept: images, PDF, Office and OpenDocument files, common archives, audio and
 * video, plain text and CSV. Executables, installers, scripts and markup are refused.
 */
export const DOCUMENT_TYPES: ReadonlySet<string> = new Set([
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'image/bmp',
  'image/tiff',
  'image/heic',
  'image/heif',
  'image/avif',
  'application/pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/msword',
  'application/vnd.ms-excel',
  'application/vnd.ms-powerpoint',
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/vnd.oasis.opendocument.presentation',
  'application/zip',
  'application/gzip',
  'application/x-7z-compressed',
  'application/x-rar-compressed',
  'video/mp4',
  'video/quicktime',
  'video/webm',
  'audio/mpeg',
  'audio/x-m4a',
  'audio/wav',
  'audio/ogg',
  'text/plain',
  'text/csv',
]);

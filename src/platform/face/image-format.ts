/**
 * Structural reading of JPEG and PNG files: enough to tell a well-formed image with its size from
 * bytes that only start like one (truncated uploads, renamed files), without decoding pixels.
 */
export type ImageFormat = 'jpeg' | 'png';

export interface ImageInfo {
  format: ImageFormat;
  width: number;
  height: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The format the magic bytes claim, or null for anything but JPEG and PNG. */
export function sniffImageFormat(bytes: Uint8Array): ImageFormat | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 8 && Buffer.from(bytes.buffer, bytes.byteOffset, 8).equals(PNG_SIGNATURE)) return 'png';
  return null;
}

/** Width and height of a structurally sound JPEG or PNG; null when the bytes are not one. */
export function readImageInfo(bytes: Uint8Array): ImageInfo | null {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (sniffImageFormat(buf)) {
    case 'jpeg':
      return readJpeg(buf);
    case 'png':
      return readPng(buf);
    default:
      return null;
  }
}

// Start-of-frame markers carry the size: baseline, extended, progressive, lossless, arithmetic.
const SOF_MARKERS = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/** Walks the marker segments from SOI to the first scan; the scan data must end with EOI. */
function readJpeg(buf: Buffer): ImageInfo | null {
  let pos = 2;
  let size: { width: number; height: number } | null = null;
  while (pos + 4 <= buf.length) {
    if (buf[pos] !== 0xff) return null;
    const marker = buf[pos + 1];
    if (marker === 0xff) {
      pos += 1; // fill byte
      continue;
    }
    const length = buf.readUInt16BE(pos + 2);
    if (length < 2 || pos + 2 + length > buf.length) return null;
    if (SOF_MARKERS.has(marker)) {
      if (length < 8) return null;
      size = { height: buf.readUInt16BE(pos + 5), width: buf.readUInt16BE(pos + 7) };
    }
    if (marker === 0xda) {
      // Start of scan: entropy-coded data follows, and the file must close with an end-of-image marker.
      if (!size || size.width === 0 || size.height === 0) return null;
      const eoi = buf.lastIndexOf(Buffer.from([0xff, 0xd9]));
      return eoi > pos + 2 + length ? { format: 'jpeg', ...size } : null;
    }
    pos += 2 + length;
  }
  return null;
}

const CRC_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

function crc32(buf: Buffer, start: number, end: number): number {
  let c = -1;
  for (let i = start; i < end; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

/** Walks the chunks: IHDR first, at least one IDAT, IEND last, every checksum right. */
function readPng(buf: Buffer): ImageInfo | null {
  let pos = 8;
  let size: { width: number; height: number } | null = null;
  let sawData = false;
  while (pos + 12 <= buf.length) {
    const length = buf.readUInt32BE(pos);
    const type = buf.toString('latin1', pos + 4, pos + 8);
    const end = pos + 8 + length;
    if (end + 4 > buf.length) return null;
    if (crc32(buf, pos + 4, end) !== buf.readUInt32BE(end)) return null;
    if (pos === 8) {
      if (type !== 'IHDR' || length !== 13) return null;
      size = { width: buf.readUInt32BE(pos + 8), height: buf.readUInt32BE(pos + 12) };
    } else if (type === 'IDAT') {
      sawData = true;
    } else if (type === 'IEND') {
      return size && sawData && size.width > 0 && size.height > 0 ? { format: 'png', ...size } : null;
    }
    pos = end + 4;
  }
  return null;
}

/**
 * Splits ffmpeg's image2pipe output (a concatenation of JPEG or WebP files) into single images,
 * so each frame can be written and announced the moment ffmpeg produces it instead of after
 * the whole process ends.
 */
export type ImageFormat = 'jpeg' | 'webp';

export interface ImageStreamSplitter {
  push(chunk: Buffer): Buffer[];
  /** Bytes left over that did not form a whole image (non-empty = ffmpeg stopped mid-image). */
  rest(): number;
}

/**
 * JPEG: parse marker segments up to SOS, then scan the entropy-coded data for the first marker
 * that is not a stuffed 0xFF00 or a restart marker — that is EOI. Searching for FFD9 blindly
 * could stop inside a quantisation table.
 */
function jpegEnd(buf: Buffer): number {
  if (buf.length < 4) return -1;
  if (buf[0] !== 0xff || buf[1] !== 0xd8) throw new Error('image stream is not JPEG (no SOI marker)');
  let i = 2;
  for (;;) {
    if (i + 4 > buf.length) return -1;
    if (buf[i] !== 0xff) throw new Error(`corrupt JPEG stream at byte ${i}`);
    const marker = buf[i + 1] ?? 0;
    if (marker === 0xff) {
      i += 1; // fill byte
      continue;
    }
    if (marker === 0xd9) return i + 2;
    const len = buf.readUInt16BE(i + 2);
    i += 2 + len;
    if (marker === 0xda) break; // SOS: entropy-coded data follows its header
  }
  for (; i + 1 < buf.length; i++) {
    if (buf[i] !== 0xff) continue;
    const m = buf[i + 1] ?? 0;
    if (m === 0x00 || m === 0xff || (m >= 0xd0 && m <= 0xd7)) continue;
    if (m === 0xd9) return i + 2;
    // Another segment after the scan (progressive JPEG): parse it as a header segment.
    if (i + 4 > buf.length) return -1;
    const len = buf.readUInt16BE(i + 2);
    i += 1 + len;
  }
  return -1;
}

function webpEnd(buf: Buffer): number {
  if (buf.length < 12) return -1;
  if (buf.toString('latin1', 0, 4) !== 'RIFF' || buf.toString('latin1', 8, 12) !== 'WEBP') throw new Error('image stream is not WebP');
  const total = buf.readUInt32LE(4) + 8;
  return buf.length >= total ? total : -1;
}

export function createImageStreamSplitter(format: ImageFormat): ImageStreamSplitter {
  let pending: Buffer = Buffer.alloc(0);
  const end = format === 'jpeg' ? jpegEnd : webpEnd;
  return {
    push(chunk) {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      const out: Buffer[] = [];
      for (;;) {
        const e = end(pending);
        if (e < 0) break;
        out.push(pending.subarray(0, e));
        pending = pending.subarray(e);
      }
      return out;
    },
    rest: () => pending.length,
  };
}

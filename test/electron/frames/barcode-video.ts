/**
 * Test videos whose frames encode their own index: the top half of frame N shows 16 vertical
 * bands, band b white when bit b of N is set (drawn by ffmpeg's geq from N). Decoding an
 * extracted image back to its number proves which frame it really is.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';

export const BITS = 16;
const GEQ = `geq=lum='if(lt(Y,H/2),255*mod(floor(N/pow(2,floor(X*${BITS}/W))),2),128)':cb=128:cr=128`;

export function fixtureDir(): string {
  const d = join(tmpdir(), 'flipbook-frames-fixtures');
  mkdirSync(d, { recursive: true });
  return d;
}

export interface BarcodeVideoOptions {
  name: string;
  frames: number;
  fps?: number;
  gop?: number;
  bframes?: number;
  startOffsetS?: number;
  codec?: 'libx264' | 'libx265' | 'mpeg4';
  /** Extra setpts expression to make the timing variable (VFR). */
  setpts?: string;
  width?: number;
  height?: number;
}

/** Generate once per machine (cached by name in the temp dir); returns the path. */
export function barcodeVideo(o: BarcodeVideoOptions): string {
  const out = join(fixtureDir(), o.name);
  if (existsSync(out)) return out;
  const fps = o.fps ?? 25;
  const w = o.width ?? 320;
  const h = o.height ?? 240;
  // settb first: otherwise setpts values are rounded to the 1/fps encoder time base (duplicates).
  const vf = [GEQ, ...(o.setpts ? ['settb=1/1000', `setpts=${o.setpts}`] : []), 'format=yuv420p'].join(',');
  const codec = o.codec ?? 'libx264';
  const codecArgs =
    codec === 'libx264'
      ? [
          '-c:v',
          'libx264',
          '-preset',
          'ultrafast',
          '-crf',
          '18',
          '-bf',
          String(o.bframes ?? 3),
          '-x264-params',
          `keyint=${o.gop ?? 50}:min-keyint=${o.gop ?? 50}:scenecut=0:b-adapt=0`,
        ]
      : codec === 'libx265'
        ? ['-c:v', 'libx265', '-preset', 'ultrafast', '-x265-params', `keyint=${o.gop ?? 50}:log-level=error`]
        : ['-c:v', 'mpeg4', '-q:v', '2', '-g', String(o.gop ?? 50), '-bf', String(o.bframes ?? 0)];
  const tmp = `${out}.${process.pid}.tmp${o.name.slice(o.name.lastIndexOf('.'))}`;
  execFileSync('ffmpeg', [
    '-y',
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    `color=c=gray:s=${w}x${h}:r=${fps}`,
    '-frames:v',
    String(o.frames),
    '-vf',
    vf,
    ...(o.setpts ? ['-fps_mode', 'passthrough'] : []),
    ...codecArgs,
    ...(o.startOffsetS ? ['-output_ts_offset', String(o.startOffsetS)] : []),
    tmp,
  ]);
  renameSync(tmp, out);
  return out;
}

function decodeBits(raw: Buffer, offset: number, W: number, H: number, what: string): number {
  let n = 0;
  const row = Math.floor(H / 4);
  for (let b = 0; b < BITS; b++) {
    const x = Math.floor(((b + 0.5) * W) / BITS);
    const v = raw[offset + row * W + x];
    if (v === undefined) throw new Error(`${what} decoded to too few bytes`);
    if (v > 128) n |= 1 << b;
  }
  // The lower half is mid grey in every frame: a check that this is a barcode frame at all.
  const grey = raw[offset + Math.floor((3 * H) / 4) * W + W / 2] ?? 0;
  if (Math.abs(grey - 128) > 20) throw new Error(`${what} is not a barcode frame (lower half ${grey})`);
  return n;
}

const W = 320;
const H = 240;

/** Read the number an image shows (any format ffmpeg reads). */
export function readBarcode(imageFile: string): number {
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', imageFile, '-vf', `scale=${W}:${H},format=gray`, '-f', 'rawvideo', 'pipe:1']);
  return decodeBits(raw, 0, W, H, imageFile);
}

/**
 * Read many JPEGs with one ffmpeg process (one process per image would dominate the test time):
 * the files are concatenated into an image2pipe stream, decoded in order.
 */
export function readBarcodes(jpegFiles: readonly string[]): number[] {
  if (!jpegFiles.length) return [];
  const input = Buffer.concat(jpegFiles.map((f) => readFileSync(f)));
  const raw = execFileSync(
    'ffmpeg',
    ['-v', 'error', '-f', 'image2pipe', '-c:v', 'mjpeg', '-i', 'pipe:0', '-vf', `scale=${W}:${H},format=gray`, '-fps_mode', 'passthrough', '-f', 'rawvideo', 'pipe:1'],
    {
      input,
      maxBuffer: 1 << 30,
    },
  );
  if (raw.length !== W * H * jpegFiles.length) throw new Error(`decoded ${raw.length / (W * H)} images from ${jpegFiles.length} files`);
  return jpegFiles.map((f, i) => decodeBits(raw, i * W * H, W, H, f));
}

import { open } from 'node:fs/promises';
import { extname } from 'node:path';
import * as z from 'zod';
import { resolveFfprobe } from './ffmpeg-path';
import { fileIdentity, type FileIdentity } from './file-identity';
import { MediaError } from './media-error';
import type { MetadataCache } from './metadata-cache';
import { lastErrorLine, runProcess } from './run-process';
import type { VideoMeta } from './video-meta';

const StreamSchema = z.object({
  index: z.number(),
  codec_type: z.string().optional(),
  codec_name: z.string().optional(),
  width: z.number().optional(),
  height: z.number().optional(),
  time_base: z.string().optional(),
  r_frame_rate: z.string().optional(),
  avg_frame_rate: z.string().optional(),
  start_time: z.string().optional(),
  duration: z.string().optional(),
  nb_frames: z.string().optional(),
  tags: z.record(z.string(), z.string()).optional(),
  side_data_list: z.array(z.record(z.string(), z.unknown())).optional(),
  disposition: z.record(z.string(), z.number()).optional(),
});
const ProbeSchema = z.object({
  streams: z.array(StreamSchema).default([]),
  format: z
    .object({
      format_name: z.string().optional(),
      duration: z.string().optional(),
      start_time: z.string().optional(),
    })
    .optional(),
});

/** Codecs Chromium's <video> plays; anything else gets an H.264 proxy. */
const PLAYABLE_CODECS = new Set(['h264', 'vp8', 'vp9', 'av1', 'theora']);

function parseRate(s: string | undefined): number {
  if (!s) return 0;
  const [a, b] = s.split('/').map(Number);
  if (a === undefined || !Number.isFinite(a)) return 0;
  if (b === undefined) return a;
  return b > 0 ? a / b : 0;
}

function parseNum(s: string | undefined): number | null {
  if (s === undefined || s === 'N/A') return null;
  const v = Number(s);
  return Number.isFinite(v) ? v : null;
}

function rotationOf(s: z.infer<typeof StreamSchema>): number {
  for (const sd of s.side_data_list ?? []) {
    const r = sd.rotation;
    // Informational only (ffmpeg autorotates extracted frames); ffprobe's sign convention changed
    // between versions, so the value is reported as ffprobe gives it, normalised to 0…359.
    if (typeof r === 'number') return ((Math.round(r) % 360) + 360) % 360;
  }
  const tag = s.tags?.rotate;
  if (tag !== undefined && Number.isFinite(Number(tag))) return ((Math.round(Number(tag)) % 360) + 360) % 360;
  return 0;
}

/** Does the file start like a container we know? Then a failed probe means truncation, not a non-video. */
async function looksLikeContainer(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const b = Buffer.alloc(12);
    const { bytesRead } = await fh.read(b, 0, 12, 0);
    if (bytesRead < 8) return false;
    const box = b.toString('latin1', 4, 8);
    if (['ftyp', 'moov', 'mdat', 'free', 'wide', 'skip'].includes(box)) return true; // ISO BMFF / QuickTime
    if (b.readUInt32BE(0) === 0x1a45dfa3) return true; // Matroska / WebM (EBML)
    if (b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'AVI ') return true;
    return b[0] === 0x47 && extname(path).toLowerCase() === '.ts'; // MPEG-TS sync byte
  } finally {
    await fh.close();
  }
}

interface PacketScan {
  pts: number[];
  keyPts: Set<number>;
  stderr: string;
}

/**
 * Every video packet's pts and key flag, without decoding (fast: ~0.3 s for 10 minutes).
 * Packets flagged D (discarded by an edit list) are not frames the player or a decoder-based
 * sampler ever shows, so they are dropped.
 */
async function scanPackets(ffprobe: string, path: string, signal?: AbortSignal): Promise<PacketScan> {
  const r = await runProcess(ffprobe, ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'packet=pts,flags', '-of', 'csv=p=0', path], signal ? { signal } : {});
  if (r.code !== 0) throw new MediaError('unreadable', path, `ffprobe failed: ${lastErrorLine(r.stderr)}`);
  const pts: number[] = [];
  const keyPts = new Set<number>();
  let missingPts = 0;
  for (const line of r.stdout.toString('latin1').split('\n')) {
    if (!line) continue;
    const comma = line.indexOf(',');
    const ptsStr = comma < 0 ? line : line.slice(0, comma);
    const flags = comma < 0 ? '' : line.slice(comma + 1);
    if (flags.includes('D')) continue;
    const p = Number(ptsStr);
    if (ptsStr === 'N/A' || !Number.isFinite(p)) {
      missingPts++;
      continue;
    }
    pts.push(p);
    if (flags.includes('K')) keyPts.add(p);
  }
  if (missingPts > 0)
    throw new MediaError('unreadable', path, `${missingPts} video packets have no presentation timestamp; remux the file (e.g. to MP4) so frames can be located exactly`);
  return { pts, keyPts, stderr: r.stderr };
}

export interface ProbeOptions {
  ffprobe?: string;
  cache?: MetadataCache;
  signal?: AbortSignal;
}

/** Probe once, then answer from the cache while (path, size, mtime, head/tail hash) match. */
export async function probeVideo(path: string, opts: ProbeOptions = {}): Promise<VideoMeta> {
  const id = await fileIdentity(path);
  const hit = await opts.cache?.get(id);
  if (hit) return hit;
  const meta = await probeUncached(id, opts);
  await opts.cache?.set(id, meta);
  return meta;
}

async function probeUncached(id: FileIdentity, opts: ProbeOptions): Promise<VideoMeta> {
  const path = id.path;
  const ffprobe = opts.ffprobe ?? resolveFfprobe();
  if (id.size === 0) throw new MediaError('not-video', path, 'file is empty');
  // The packet scan runs alongside the stream probe (they are independent; this halves the
  // latency of a cold open). Its failure only matters once the file is known to be a video.
  const scanning = scanPackets(ffprobe, path, opts.signal);
  scanning.catch(() => {});
  const r = await runProcess(ffprobe, ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', path], opts.signal ? { signal: opts.signal } : {});
  if (r.code !== 0) {
    const why = lastErrorLine(r.stderr);
    if (/moov atom not found|partial file|EBML header parsing failed|End of file/i.test(r.stderr) && (await looksLikeContainer(path)))
      throw new MediaError('truncated', path, `video file is truncated or incomplete (${why})`);
    throw new MediaError('not-video', path, `not a readable video file (${why})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(r.stdout.toString('utf8'));
  } catch {
    throw new MediaError('not-video', path, 'ffprobe returned unreadable output');
  }
  const parsed = ProbeSchema.safeParse(json);
  if (!parsed.success) throw new MediaError('not-video', path, 'ffprobe output has an unexpected shape');
  // Cover art is a "video" stream with attached_pic; it is not the video.
  const v = parsed.data.streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  if (!v) throw new MediaError('not-video', path, 'contains no video stream');
  if (!v.width || !v.height || !v.codec_name) throw new MediaError('not-video', path, 'video stream has no size or codec');
  const tbMatch = /^(\d+)\/(\d+)$/.exec(v.time_base ?? '');
  if (!tbMatch) throw new MediaError('not-video', path, `video stream has no time base`);
  const timeBase: [number, number] = [Number(tbMatch[1]), Number(tbMatch[2])];

  const scan = await scanning;
  if (scan.pts.length === 0) {
    if (await looksLikeContainer(path)) throw new MediaError('truncated', path, 'video stream has no readable frames (file truncated?)');
    throw new MediaError('not-video', path, 'video stream has no frames');
  }
  const containerFrameCount = parseNum(v.nb_frames);
  const truncatedScan = /partial file|Invalid NAL unit size|truncat/i.test(scan.stderr);
  if ((containerFrameCount !== null && scan.pts.length < containerFrameCount) || truncatedScan)
    throw new MediaError(
      'truncated',
      path,
      `video file is truncated: ${scan.pts.length} readable frames${containerFrameCount !== null ? ` of ${containerFrameCount} the container lists` : ''}`,
    );

  const pts = [...scan.pts].sort((a, b) => a - b);
  for (let i = 1; i < pts.length; i++) {
    if (pts[i] === pts[i - 1])
      throw new MediaError('variable-frame-rate', path, `two frames share the timestamp ${pts[i]}; frame indices would be ambiguous, so strips are refused for this file`);
  }
  const keyframes: number[] = [];
  pts.forEach((p, i) => {
    if (scan.keyPts.has(p)) keyframes.push(i);
  });
  // A stream whose first frame is not flagged key (open GOP, cut files) still decodes from its start.
  if (keyframes[0] !== 0) keyframes.unshift(0);

  // Regular when every gap is the same tick count; near-regular (rounded ms timestamps of 29.97 fps)
  // still counts as constant frame rate, but its real pts list is kept so indices map exactly.
  const gaps: number[] = [];
  for (let i = 1; i < pts.length; i++) gaps.push((pts[i] ?? 0) - (pts[i - 1] ?? 0));
  const sortedGaps = [...gaps].sort((a, b) => a - b);
  const median = sortedGaps[sortedGaps.length >> 1] ?? 0;
  const minGap = sortedGaps[0] ?? 0;
  const maxGap = sortedGaps.at(-1) ?? 0;
  const regular = gaps.length === 0 || minGap === maxGap;
  const tolerance = Math.max(1, Math.round(median * 0.02));
  const variableFrameRate = !regular && (maxGap - median > tolerance || median - minGap > tolerance);

  const first = pts[0] ?? 0;
  const last = pts.at(-1) ?? 0;
  const tick = timeBase[0] / timeBase[1];
  const frameDur = median * tick;
  const startTimeS = first * tick;
  const durationS = (last - first) * tick + frameDur;
  const codec = v.codec_name;
  return {
    version: 1,
    path,
    size: id.size,
    mtimeMs: id.mtimeMs,
    hash: id.headTailHash,
    container: parsed.data.format?.format_name ?? 'unknown',
    codec,
    playable: PLAYABLE_CODECS.has(codec),
    width: v.width,
    height: v.height,
    rotation: rotationOf(v),
    durationS,
    startTimeS,
    timeBase,
    avgFrameRate: parseRate(v.avg_frame_rate) || (durationS > 0 ? pts.length / durationS : 0),
    realFrameRate: parseRate(v.r_frame_rate),
    frameCount: pts.length,
    containerFrameCount,
    variableFrameRate,
    pts: regular && median > 0 ? { kind: 'regular', first, step: median } : { kind: 'list', values: pts },
    keyframes,
  };
}

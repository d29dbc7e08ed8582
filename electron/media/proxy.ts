import { join } from 'node:path';
import { access, mkdir, rename, rm } from 'node:fs/promises';
import { resolveFfmpeg } from './ffmpeg-path';
import { MediaError } from './media-error';
import { lastErrorLine, runProcess } from './run-process';
import type { VideoMeta } from './video-meta';

/**
 * Chromium cannot play HEVC, MPEG-4 part 2 and friends; such videos get an H.264/AAC MP4
 * proxy, transcoded once and kept in the content-addressed cache. Frame
 * extraction still reads the original (ffmpeg decodes it), so strips stay exact; the proxy
 * keeps every frame (-fps_mode passthrough) and starts at 0 like the strips' time axis, so the player
 * and the strips line up.
 */
export function proxyPath(cacheDir: string, meta: VideoMeta): string {
  return join(cacheDir, meta.hash.slice(0, 2), meta.hash, 'proxy-h264.mp4');
}

export interface ProxyOptions {
  cacheDir: string;
  ffmpeg?: string;
  signal?: AbortSignal;
  /** 0…1, from ffmpeg's -progress output. */
  onProgress?: (fraction: number) => void;
}

const running = new Map<string, Promise<string>>();

/** Path the player should use: the original if playable, else the (possibly new) proxy. */
export async function ensurePlayable(meta: VideoMeta, opts: ProxyOptions): Promise<string> {
  if (meta.playable) return meta.path;
  const out = proxyPath(opts.cacheDir, meta);
  if (
    await access(out).then(
      () => true,
      () => false,
    )
  )
    return out;
  let p = running.get(out);
  if (!p) {
    p = transcode(meta, out, opts).finally(() => running.delete(out));
    running.set(out, p);
  }
  return p;
}

async function transcode(meta: VideoMeta, out: string, opts: ProxyOptions): Promise<string> {
  await mkdir(join(out, '..'), { recursive: true });
  const tmp = `${out}.${process.pid}.part.mp4`;
  const total = meta.durationS;
  const args = [
    '-hide_banner',
    '-nostdin',
    '-v',
    'error',
    '-y',
    '-i',
    meta.path,
    '-map',
    '0:v:0',
    '-map',
    '0:a:0?',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '20',
    '-pix_fmt',
    'yuv420p',
    '-fps_mode',
    'passthrough',
    '-c:a',
    'aac',
    '-b:a',
    '128k',
    '-movflags',
    '+faststart',
    '-progress',
    'pipe:2',
    '-nostats',
    tmp,
  ];
  try {
    const r = await runProcess(opts.ffmpeg ?? resolveFfmpeg(), args, {
      ...(opts.signal ? { signal: opts.signal } : {}),
      onStderrLine: (line) => {
        const m = /^out_time_us=(\d+)/.exec(line);
        if (m && total > 0) opts.onProgress?.(Math.min(1, Number(m[1]) / 1e6 / total));
      },
    });
    if (r.code !== 0) throw new MediaError('ffmpeg-failed', meta.path, `could not transcode a playable proxy: ${lastErrorLine(r.stderr)}`);
    await rename(tmp, out);
    opts.onProgress?.(1);
    return out;
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

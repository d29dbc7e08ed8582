import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';

/**
 * Where ffmpeg/ffprobe come from, in the order DEVELOPERS.md promises:
 * env FLIPBOOK_FFMPEG / FLIPBOOK_FFPROBE → the optional ffmpeg-static package → PATH.
 * ffmpeg-static is an optionalDependency (absent on some machines), so it is looked up at
 * run time and never imported statically.
 */
function fromStaticPackage(): string | null {
  try {
    const require = createRequire(import.meta.url);
    const bin: unknown = require('ffmpeg-static');
    if (typeof bin !== 'string') return null;
    // In a packaged app the package resolves inside app.asar, which cannot be executed; the
    // binary itself is unpacked beside it (asarUnpack in electron-builder.config.cjs).
    const unpacked = bin.replace(/app\.asar([\\/])/, 'app.asar.unpacked$1');
    return existsSync(unpacked) ? unpacked : null;
  } catch {
    return null;
  }
}

export function resolveFfmpeg(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.FLIPBOOK_FFMPEG;
  if (fromEnv) return fromEnv;
  return fromStaticPackage() ?? 'ffmpeg';
}

/**
 * ffmpeg-static ships no ffprobe; when its ffmpeg is used we still look for ffprobe on PATH
 * (ffprobe-static is not a dependency).
 */
export function resolveFfprobe(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.FLIPBOOK_FFPROBE;
  if (fromEnv) return fromEnv;
  return 'ffprobe';
}

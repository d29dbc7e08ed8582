/**
 * A long item for the item view's tests and bench: a real 6-minute 1280×720 video made by the
 * system ffmpeg (testsrc2 at 2 fps, so it is small and quick to make: 720 frames), and a
 * project whose one item plays it under four visual budgets (8, 16, 32, 64 frames, each config's
 * frames picked by the toolkit's default sampler from the video's real frame count).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openProject } from '../electron/store/project';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const LONG_VIDEO = { seconds: 360, fps: 2, width: 1280, height: 720, name: 'long-720p.mp4' } as const;
export const LONG_ITEM = { model: 'LongModel-7B', split: 'LongBench', sampleId: 'L-001' } as const;
export const LONG_CONFIGS = ['8f', '16f', '32f', '64f'] as const;

/** The video, made once per machine (cached by name in the temp dir, as test/electron/frames/barcode-video.ts does). */
export function longVideo(): string {
  const dir = path.join(os.tmpdir(), 'flipbook-long-video');
  fs.mkdirSync(dir, { recursive: true });
  const out = path.join(dir, LONG_VIDEO.name);
  if (fs.existsSync(out)) return out;
  const tmp = `${out}.${process.pid}.part.mp4`;
  execFileSync(
    process.env.FLIPBOOK_FFMPEG ?? 'ffmpeg',
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      `testsrc2=size=${LONG_VIDEO.width}x${LONG_VIDEO.height}:rate=${LONG_VIDEO.fps}`,
      '-t',
      String(LONG_VIDEO.seconds),
      '-c:v',
      'libx264',
      '-preset',
      'veryfast',
      '-crf',
      '30',
      '-g',
      '10',
      '-pix_fmt',
      'yuv420p',
      tmp,
    ],
    { stdio: 'inherit' },
  );
  fs.renameSync(tmp, out);
  return out;
}

/**
 * A project in `dir` (long.flipbook, media/ holding a copy of the video) whose item L-001 has
 * the four budgets: 8f and 16f right, 32f and 64f wrong (a terminal regression at 16f>32f).
 */
export function longProject(dir: string): { project: string; media: string } {
  const media = path.join(dir, 'media');
  fs.mkdirSync(media, { recursive: true });
  // A hard link where the file system allows one (a symlink would lead outside the media root).
  try {
    fs.linkSync(longVideo(), path.join(media, LONG_VIDEO.name));
  } catch {
    fs.copyFileSync(longVideo(), path.join(media, LONG_VIDEO.name));
  }
  const options = '"[""A. a red ball"", ""B. a blue cube"", ""C. a green cone"", ""D. nothing""]"';
  const lines = ['qid,response,gt,budget,video,question,options'];
  for (const c of LONG_CONFIGS)
    lines.push(
      `${LONG_ITEM.sampleId},${c === '8f' || c === '16f' ? 'A' : 'B'},A,${c},${LONG_VIDEO.name},What appears in the top-left corner after the six-minute mark?,${options}`,
    );
  const csv = path.join(dir, 'long.csv');
  fs.writeFileSync(csv, `${lines.join('\n')}\n`);
  const project = path.join(dir, 'long.flipbook');
  const r = spawnSync(
    process.execPath,
    [
      path.join(ROOT, 'bin/flipbook.js'),
      'import',
      csv,
      '--project',
      project,
      '--columns',
      'sample_id=qid,prediction=response,answer=gt,config=budget,video=video,question=question,options=options',
      '--model',
      LONG_ITEM.model,
      '--split',
      LONG_ITEM.split,
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`flipbook import: ${r.stderr}`);
  const p = openProject(project);
  try {
    p.setSetting('mediaRoot', media);
  } finally {
    p.close();
  }
  return { project, media };
}

/**
 * `flipbook sample-project`: the embedded sample project — synthetic videos with
 * timed, countable events, questions derived from the schedule, and three simulated models
 * whose answers come from the frames their samplers pick (see simulated-models.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { openProject } from '../store/project';
import type { ImportSummary } from '../store/import-apply';
import { buildSampleBatches } from './build-batches';
import { ensureSampleMedia, type SampleMediaOptions, type SampleMediaResult } from './render-videos';
import { loadSchedule, SCHEDULE_PATH } from './schedule';

export const SAMPLE_PROJECT_FILE = 'sample.flipbook';
export const SAMPLE_MEDIA_DIR = 'media';

export interface SampleProjectOptions extends SampleMediaOptions {
  /** Rebuild sample.flipbook even when it exists (annotations in it are lost). */
  force?: boolean;
  scheduleFile?: string;
}

export interface SampleProjectResult {
  projectPath: string;
  mediaRoot: string;
  media: SampleMediaResult;
  /** false when an existing sample.flipbook was kept (no --force). */
  projectWritten: boolean;
  import: ImportSummary | null;
}

function removeProjectFiles(file: string): void {
  // SQLite's WAL and shared-memory files belong to the database: a stale -wal beside a new
  // file would be replayed into it.
  for (const suffix of ['', '-wal', '-shm', '-journal', '.lock', '.lock.db']) fs.rmSync(`${file}${suffix}`, { force: true });
}

export async function createSampleProject(outDir: string, opts: SampleProjectOptions = {}): Promise<SampleProjectResult> {
  const { schedule, text } = loadSchedule(opts.scheduleFile ?? SCHEDULE_PATH);
  const dir = path.resolve(outDir);
  fs.mkdirSync(dir, { recursive: true });
  const mediaRoot = path.join(dir, SAMPLE_MEDIA_DIR);
  const media = await ensureSampleMedia(schedule, mediaRoot, opts);

  const projectPath = path.join(dir, SAMPLE_PROJECT_FILE);
  if (fs.existsSync(projectPath) && !opts.force) return { projectPath, mediaRoot, media, projectWritten: false, import: null };

  // Build into a temporary file and rename it into place, so an interrupted run never leaves
  // a half-filled sample project behind.
  const tmp = path.join(dir, `.${SAMPLE_PROJECT_FILE}.tmp-${process.pid}`);
  removeProjectFiles(tmp);
  const batches = buildSampleBatches(schedule, text);
  let summary: ImportSummary;
  const project = openProject(tmp, { create: true });
  try {
    summary = project.applyImports(batches);
    project.setSetting('mediaRoot', mediaRoot);
  } finally {
    project.close();
  }
  removeProjectFiles(projectPath);
  fs.renameSync(tmp, projectPath);
  removeProjectFiles(tmp);
  return { projectPath, mediaRoot, media, projectWritten: true, import: summary };
}

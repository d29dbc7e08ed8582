import { z } from 'zod';
import type { ImportBatch } from '../../shared/domain/types';
import { BatchBuilder, expandSplit, parseWith, type ImportOptions } from './batch-builder';
import { ImportError } from './errors';
import { sha256File } from './file-hash';
import { stripOptionPrefix } from './mcq-text';
import { isOptionLetter } from './option-letter';

/**
 * Video-MME's dataset table (Hugging Face `videomme/test-*.parquet`) → item metadata:
 * question, options, answer letter, task type, duration bucket, domain, sub-category and
 * the video file `<videoID>.mp4`. Read with hyparquet in slices of rows (the file is read
 * by ranges, never whole); snappy/zstd/… via hyparquet-compressors. "Line" in errors is
 * the 1-based row number. Split: --split (with `{duration}`, e.g. `V1_{duration}`) or
 * `videomme` — the same default as the lmms-eval importer, so the two join.
 */
const REQUIRED = ['duration', 'videoID', 'question_id', 'task_type', 'question', 'options', 'answer'] as const;

const Row = z
  .object({
    video_id: z.union([z.string(), z.number(), z.bigint()]).nullish(),
    duration: z.string(),
    domain: z.string().nullish(),
    sub_category: z.string().nullish(),
    videoID: z.string().min(1),
    question_id: z.string().min(1),
    task_type: z.string().nullish(),
    question: z.string(),
    options: z.array(z.string()),
    answer: z.string().refine(isOptionLetter, 'expected an option letter A–H'),
  })
  .passthrough();

const SLICE = 10_000;

export async function readVideoMmeParquet(path: string, opts: ImportOptions = {}): Promise<ImportBatch> {
  const file = path;
  // Loaded on first use so that start-up does not pay for them (docs/architecture.md, "CLI start-up").
  const [{ asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects }, { compressors }] = await Promise.all([
    import('hyparquet'),
    import('hyparquet-compressors'),
  ]);
  const buf = await asyncBufferFromFile(path);
  let meta;
  try {
    meta = await parquetMetadataAsync(buf);
  } catch (e) {
    throw new ImportError(file, 0, '', `not a readable parquet file: ${(e as Error).message}`);
  }
  const names = new Set(meta.schema.map((s) => s.name));
  for (const c of REQUIRED) {
    if (!names.has(c)) throw new ImportError(file, 0, c, `missing column "${c}" (expected Video-MME's table)`);
  }
  const total = Number(meta.num_rows);
  const b = new BatchBuilder(file);
  for (let start = 0; start < total; start += SLICE) {
    const rows = await parquetReadObjects({ file: buf, metadata: meta, compressors, rowStart: start, rowEnd: Math.min(total, start + SLICE) });
    rows.forEach((raw, k) => {
      const line = start + k + 1;
      const r = parseWith(Row, raw, file, line);
      const split = opts.split ? expandSplit(opts.split, r.duration) : 'videomme';
      b.addItem(
        {
          split,
          sampleId: r.question_id,
          question: r.question,
          options: r.options.map(stripOptionPrefix),
          answer: r.answer,
          taskType: r.task_type ?? null,
          durationBucket: r.duration,
          domain: r.domain ?? null,
          subCategory: r.sub_category ?? null,
          videoId: r.videoID,
          videoFile: `${r.videoID}.mp4`,
          kind: 'mcqa',
        },
        line,
      );
    });
  }
  return b.finish({ sourcePath: path, sha256: await sha256File(path), format: 'videomme-parquet', toolkit: 'video-mme', modelArgs: null });
}

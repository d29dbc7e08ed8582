import * as z from 'zod';
import type { ImportBatch } from '../../shared/domain/types';
import { BatchBuilder, parseWith, splitFor, type ImportOptions } from './batch-builder';
import { ImportError } from './errors';
import { sha256File } from './file-hash';
import { parseListLiteral } from './list-literal';
import { readParquetRows } from './parquet-rows';
import { stripOptionPrefix } from './mcq-text';
import { isOptionLetter } from './option-letter';

/**
 * Video-MME-v2's table (Hugging Face `MME-Benchmarks/Video-MME-v2` `test.parquet`) has other
 * columns — `video_id, url, group_type, group_structure, question_id, question, options,
 * answer, level, second_head, third_head`, no duration, options A–H (a list, or one per line)
 * — and is read too: items get question, options, answer, task type (`second_head`),
 * sub-category (`third_head`) and the video file `<video_id>.mp4`; the default split is
 * `videomme_v2` (v1 and v2 ids collide). `--split` with `{duration}` is refused for it: v2
 * states no duration (docs/formats.md "Video-MME metadata").
 *
 * Video-MME's dataset table (Hugging Face `videomme/test-*.parquet`) → item metadata:
 * question, options, answer letter, task type, duration bucket, domain, sub-category and
 * the video file `<videoID>.mp4`. Read with hyparquet in slices of rows (the file is read
 * by ranges, never whole), on a thread that a damaged file cannot hold past a deadline
 * (parquet-rows.ts); snappy/zstd/… via hyparquet-compressors. "Line" in errors is
 * the 1-based row number. Split: --split (with `{duration}`, e.g. `V1_{duration}`) or
 * `videomme` — the same default as the lmms-eval importer, so the two join.
 */
const REQUIRED = ['duration', 'videoID', 'question_id', 'task_type', 'question', 'options', 'answer'] as const;
const REQUIRED_V2 = ['video_id', 'group_type', 'question_id', 'question', 'options', 'answer'] as const;

const RowV2 = z
  .object({
    video_id: z.union([z.string().min(1), z.number(), z.bigint()]),
    question_id: z.union([z.string().min(1), z.number(), z.bigint()]),
    question: z.string(),
    options: z.union([z.array(z.string()), z.string()]),
    answer: z.string().refine(isOptionLetter, 'expected an option letter A–H'),
    group_type: z.string().nullish(),
    second_head: z.string().nullish(),
    third_head: z.string().nullish(),
  })
  .passthrough();

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
  const table = readParquetRows(path, file, SLICE);
  try {
    const head = await table.header();
    const names = new Set(head.names);
    const v2 = !names.has('duration') && names.has('group_type');
    for (const c of v2 ? REQUIRED_V2 : REQUIRED) {
      if (!names.has(c)) throw new ImportError(file, 0, c, `missing column "${c}" (expected Video-MME's table)`);
    }
    const b = new BatchBuilder(file);
    for (let slice = await table.next(); slice; slice = await table.next()) {
      const { start, rows } = slice;
      rows.forEach((raw, k) => {
        const line = start + k + 1;
        if (v2) {
          addV2(b, parseWith(RowV2, raw, file, line), file, line, opts);
          return;
        }
        const r = parseWith(Row, raw, file, line);
        const split = opts.split ? splitFor(opts.split, r.duration, file, line, 'duration') : 'videomme';
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
  } finally {
    table.stop();
  }
}

/** One row of Video-MME-v2's table → an item (see the header). */
function addV2(b: BatchBuilder, r: z.infer<typeof RowV2>, file: string, line: number, opts: ImportOptions): void {
  const options = typeof r.options === 'string' ? parseListLiteral(r.options) : r.options;
  if (!options || options.length === 0) throw new ImportError(file, line, 'options', 'expected the options A–H (a list, or one per line)');
  // The v2 script names videos and subtitles `<video_id>.mp4` / `.jsonl`, 3-digit ids (`001`).
  const videoId = typeof r.video_id === 'string' ? r.video_id : String(r.video_id).padStart(3, '0');
  const split = opts.split ? splitFor(opts.split, null, file, line, 'duration') : 'videomme_v2';
  b.addItem(
    {
      split,
      sampleId: String(r.question_id),
      question: r.question,
      options: options.map(stripOptionPrefix),
      answer: r.answer,
      taskType: r.second_head ?? null,
      subCategory: r.third_head ?? null,
      videoId,
      videoFile: `${videoId}.mp4`,
      kind: 'mcqa',
    },
    line,
  );
}

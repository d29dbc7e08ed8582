import { basename, extname } from 'node:path';
import { z } from 'zod';
import type { ImportBatch } from '../../shared/domain/types';
import { BatchBuilder, emptyResponse, expandSplit, parseWith, type ImportOptions } from './batch-builder';
import { resolveConfigKey, specFor } from './config-keys';
import { ImportError } from './errors';
import { budgetFromName } from './file-name-budget';
import { sha256File } from './file-hash';
import { readJsonSource } from './json-source';
import { stripOptionPrefix } from './mcq-text';
import { extractOptionLetter, isOptionLetter } from './option-letter';

/**
 * Video-MME's official result JSON (the input of its eval_your_results.py), both field
 * generations:
 *  1. a list of videos `{video_id, duration, domain, sub_category, questions: [{question_id,
 *     task_type, question, options, answer, response}]}`;
 *  2. the newer flat list with one record per question carrying the video fields itself.
 * The letter is extracted from `response` (option-letter.ts). Model: --model or the file
 * name's first `_` part; config: --config or a budget in the file name (`_16f`, `_64frame`);
 * split: --split (with `{duration}` placeholder) or `videomme`.
 */
const Question = z
  .object({
    question_id: z.union([z.string().min(1), z.number()]),
    task_type: z.string().nullish(),
    question: z.string().nullish(),
    options: z.array(z.string()).nullish(),
    answer: z.string().nullish(),
    response: z.string().nullable(),
  })
  .passthrough();

const VideoFields = z
  .object({
    video_id: z.union([z.string(), z.number()]).nullish(),
    videoID: z.string().nullish(),
    duration: z.string().nullish(),
    domain: z.string().nullish(),
    sub_category: z.string().nullish(),
  })
  .passthrough();

const Video = VideoFields.extend({ questions: z.array(z.unknown()) });

export async function readVideoMmeResults(path: string, opts: ImportOptions = {}): Promise<ImportBatch> {
  const file = path;
  const src = await readJsonSource(path);
  if (!Array.isArray(src.value)) throw new ImportError(file, 1, '', 'expected a JSON list of videos or questions');
  const stem = basename(path, extname(path));
  const nb = budgetFromName(stem);
  const model = opts.model ?? (nb.before.length > 1 ? nb.before[0] : null);
  if (!model) throw new ImportError(file, 0, 'model', 'model unknown from the file name; pass --model');
  const config = resolveConfigKey(file, { frames: nb.frames, pixels: null, what: 'the file name' }, opts.config);
  const b = new BatchBuilder(file);
  b.fieldName = (f) => (f === 'pred' ? 'response' : f === 'groundTruth' ? 'answer' : f);
  b.addConfig(specFor(config, { toolkit: 'video-mme', sampling: { policy: null, seed: null, fps: nb.fps } }));

  const addQuestion = (video: z.infer<typeof VideoFields>, rawQ: unknown, path0: string): void => {
    const line = src.lineOf(rawQ);
    const q = parseWith(Question, rawQ, file, line, path0);
    const sampleId = String(q.question_id);
    const split = opts.split ? expandSplit(opts.split, video.duration) : 'videomme';
    const answer = q.answer || null;
    if (answer !== null && !isOptionLetter(answer)) {
      throw new ImportError(file, line, 'answer', `expected an option letter A–H, got ${JSON.stringify(answer)}`);
    }
    const pred = extractOptionLetter(q.response);
    const row = emptyResponse(model, split, sampleId, config, line);
    row.pred = pred;
    row.groundTruth = answer;
    row.correct = answer === null ? null : pred === answer;
    row.sourceTag = 'video-mme-results';
    b.addResponse(row);
    const videoId = video.videoID ?? null;
    b.addItem(
      {
        split,
        sampleId,
        question: q.question ?? null,
        options: q.options ? q.options.map(stripOptionPrefix) : null,
        answer,
        taskType: q.task_type ?? null,
        durationBucket: video.duration ?? null,
        domain: video.domain ?? null,
        subCategory: video.sub_category ?? null,
        videoId,
        videoFile: videoId ? `${videoId}.mp4` : null,
        kind: 'mcqa',
      },
      line,
    );
  };

  src.value.forEach((rec, i) => {
    const line = src.lineOf(rec);
    if (rec !== null && typeof rec === 'object' && 'questions' in rec) {
      const v = parseWith(Video, rec, file, line, `[${i}]`);
      v.questions.forEach((q, j) => addQuestion(v, q, `[${i}].questions[${j}]`));
    } else {
      addQuestion(parseWith(VideoFields, rec, file, line, `[${i}]`), rec, `[${i}]`);
    }
  });
  return b.finish({ sourcePath: path, sha256: await sha256File(path), format: 'videomme-results', toolkit: 'video-mme', modelArgs: null });
}

import { basename, extname } from 'node:path';
import * as z from 'zod';
import type { ImportBatch } from '../../shared/domain/types';
import { BatchBuilder, emptyResponse, parseWith, splitFor, type ImportOptions } from './batch-builder';
import { guessWarning, resolveConfigKey, specFor, withVariant } from './config-keys';
import { ImportError } from './errors';
import { parseResultName } from './file-name-budget';
import { sha256File } from './file-hash';
import { readJsonSource } from './json-source';
import { stripOptionPrefix } from './mcq-text';
import { extractOptionLetter, isOptionLetter } from './option-letter';

/**
 * Video-MME's official result JSON (the input of its eval_your_results.py), every field
 * generation (docs/formats.md "Video-MME results"):
 *  1. the June-2024 template: videos `{video_id, duration_category, video_category,
 *     video_subcategory, url, [missing], questions: [{question_id, task_type, question,
 *     choices, answer, response}]}`;
 *  2. the current template: the same with `duration, domain, sub_category` and `options`;
 *  3. the flat list with one record per question carrying the video fields itself.
 * A video marked `missing: true` (eval_your_results.py's skip_missing) has no responses: its
 * questions are skipped and counted in a warning. `--split` with `{duration}` needs each
 * video's duration bucket; a row without one is an error, never a split named `unknown`.
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
    /** The June-2024 template's name for options. */
    choices: z.array(z.string()).nullish(),
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
    // The June-2024 template's names for the same three fields, and its YouTube link.
    duration_category: z.string().nullish(),
    video_category: z.string().nullish(),
    video_subcategory: z.string().nullish(),
    url: z.string().nullish(),
    missing: z.boolean().nullish(),
  })
  .passthrough();

/** The YouTube id of a `watch?v=<id>` / `youtu.be/<id>` link, or null. */
function youtubeId(url: string | null | undefined): string | null {
  if (!url) return null;
  const m = /[?&]v=([A-Za-z0-9_-]{6,})/.exec(url) ?? /youtu\.be\/([A-Za-z0-9_-]{6,})/.exec(url);
  return m?.[1] ?? null;
}

const Video = VideoFields.extend({ questions: z.array(z.unknown()) });

export async function readVideoMmeResults(path: string, opts: ImportOptions = {}): Promise<ImportBatch> {
  const file = path;
  const src = await readJsonSource(path);
  if (!Array.isArray(src.value)) throw new ImportError(file, 1, '', 'expected a JSON list of videos or questions');
  const stem = basename(path, extname(path));
  const nb = parseResultName(stem);
  const model = opts.model ?? nb.model;
  if (!model) throw new ImportError(file, 0, 'model', 'model unknown from the file name; pass --model');
  const config = withVariant(file, resolveConfigKey(file, { frames: nb.frames, pixels: null, what: 'the file name' }, opts.config), nb.variant);
  const b = new BatchBuilder(file);
  b.fieldName = (f) => (f === 'pred' ? 'response' : f === 'groundTruth' ? 'answer' : f);
  b.addConfig(specFor(config, { toolkit: 'video-mme', sampling: { policy: null, seed: null, fps: nb.fps } }));
  if (nb.guess && !opts.model) b.warnings.push(guessWarning(file, nb.guess));

  let missingVideos = 0;
  let missingQuestions = 0;
  const addQuestion = (video: z.infer<typeof VideoFields>, rawQ: unknown, path0: string, videoPath: string, videoLine: number): void => {
    const line = src.lineOf(rawQ);
    const q = parseWith(Question, rawQ, file, line, path0);
    const sampleId = String(q.question_id);
    const duration = video.duration ?? video.duration_category ?? null;
    const durationField = `${videoPath}.${video.duration_category != null ? 'duration_category' : 'duration'}`;
    const split = opts.split ? splitFor(opts.split, duration, file, videoLine, durationField) : 'videomme';
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
    const videoId = video.videoID ?? youtubeId(video.url);
    const options = q.options ?? q.choices ?? null;
    b.addItem(
      {
        split,
        sampleId,
        question: q.question ?? null,
        options: options ? options.map(stripOptionPrefix) : null,
        answer,
        taskType: q.task_type ?? null,
        durationBucket: duration,
        domain: video.domain ?? video.video_category ?? null,
        subCategory: video.sub_category ?? video.video_subcategory ?? null,
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
      if (v.missing === true) {
        missingVideos++;
        missingQuestions += v.questions.length;
        return;
      }
      v.questions.forEach((q, j) => addQuestion(v, q, `[${i}].questions[${j}]`, `[${i}]`, line));
    } else {
      addQuestion(parseWith(VideoFields, rec, file, line, `[${i}]`), rec, `[${i}]`, `[${i}]`, line);
    }
  });
  if (missingVideos > 0) {
    b.warnings.push(`${basename(file)}: ${missingVideos} video(s) marked "missing" — their ${missingQuestions} question(s) have no response and were not imported`);
  }
  return b.finish({ sourcePath: path, sha256: await sha256File(path), format: 'videomme-results', toolkit: 'video-mme', modelArgs: null });
}

import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { unzipSync } from 'fflate';
import type { DerivedId, ImportBatch } from '../../shared/domain/types';
import { BatchBuilder, emptyResponse, splitFor, type ImportOptions } from './batch-builder';
import { guessWarning, resolveConfigKey, specFor, withVariant } from './config-keys';
import { readCsvRecords } from './csv-records';
import { ImportError } from './errors';
import { parseResultName } from './file-name-budget';
import { Header } from './header';
import { sha256File } from './file-hash';
import { readJsonSource } from './json-source';
import { checkId } from './text-input';
import { parseListLiteral } from './list-literal';
import { stripOptionPrefix } from './mcq-text';
import { MlvuQuirks, answerLetter, mlvuSplit, sampleIdOf } from './mlvu';
import { OpenScorer, checkKind, parseScore, referencesOf } from './open-ended';
import { ClosedScorer, extractYesNo, YES_NO_OPTIONS, yesNoAnswer, yesNoLetter } from './closed-answer';
import { extractOptionLetter, isOptionLetter, optionLetterAt, lastOptionLetter } from './option-letter';

/**
 * VLMEvalKit prediction files (docs/formats.md "VLMEvalKit"): `<model>_<dataset>[_<N>frame |
 * _<x>fps][_subs…].{xlsx,tsv,json}` as its run.py names them, and the official Video-MME-v2
 * script's `Video-MME-v2_<model>_<N>frame[…].tsv` (file-name-budget.ts reads both orders;
 * words after the budget are a config variant, `8f@subs`).
 * Columns used: `index`, `question_id`, `video`/`videoID`, `question`, `candidates` or
 * `options` (a list literal, or Video-MME-v2's one option per line), `answer`, `prediction`,
 * `task_type`/`question_type`, `duration`, `domain`, `sub_category`, `SUB_DATASET`. The letter
 * is extracted from `prediction` (option-letter.ts). Budget: `64frame` → frames 64; `1fps` →
 * the frame count varies per video and is unknown, so --config is required and the fps is
 * recorded in sampling. "Line" is the spreadsheet/TSV row (header = 1) or the JSON record's line.
 *
 * Sample ids join the benchmark's own ids, so that VLMEvalKit, lmms-eval, parquet and release
 * rows of one question are one item:
 *  - a `question_id` column wins (Video-MME-v2 files carry it);
 *  - Video-MME files have none: VLMEvalKit's `index` is the row of Video-MME's table, which
 *    holds 3 questions per video in video order, so row i is question `<⌊i/3⌋+1 as 3 digits>-<i
 *    mod 3 + 1>` (`001-1`). The file's own rows must agree (one video per derived video id, one
 *    derived id per video) and the store checks each against the question text of the project's
 *    item of that id when Video-MME's metadata is there (ImportBatch.derivedIds);
 *  - MLVU rows: MLVU's `<video stem>#<sha1(question)>` (mlvu.ts), the metadata's ids;
 *  - other datasets: `index`.
 * The default split is the benchmark's (Video-MME `videomme`, v2 `videomme_v2`, MLVU `MLVU`
 * and `MLVU_gen`) so other sources' items join; otherwise the dataset name.
 *
 * Open-ended datasets (no `candidates`/`options` value and an `answer` that is free text, not
 * a letter): `pred` is the `prediction` text, the score is the row's `score` in [0, 1] when
 * the file has one, else Token-F1 against `answer` (open-ended.ts); items get `references`.
 * A file holds one kind — except VLMEvalKit's MLVU file, which holds both (its `SUB_DATASET`
 * says which): its multiple-choice rows go to split `MLVU` (or --split) and its open-ended
 * ones to `MLVU_gen` (or --split + `_gen`). MLVU's benchmark quirks are skipped and counted
 * as in mlvu.ts.
 *
 * Multi-turn rows (a whole dialogue per row, `question`/`answer`/`prediction` lists): one open
 * item per turn, its earlier turns as its history (multiTurnRow).
 */
type Rec = Record<string, unknown>;

function text(v: unknown): string | null {
  if (v == null) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'object') {
    const o = v as { richText?: { text: string }[]; result?: unknown; text?: unknown };
    if (Array.isArray(o.richText)) return o.richText.map((r) => r.text).join('');
    if (o.result !== undefined) return text(o.result);
    if (typeof o.text === 'string') return o.text;
  }
  return null;
}

/**
 * A sheet cut short (a truncated write, a damaged copy) must be refused naming the part, before
 * ExcelJS sees it: its reader fails on one with a message about its own internals, and its
 * streaming reader used to stop quietly where the XML ended (29 of 60 rows). Each worksheet and
 * the shared strings must end with their root's closing tag, and the zip must be readable.
 */
function checkXlsxComplete(bytes: Uint8Array, file: string): void {
  const isPart = (n: string): boolean => /^xl\/worksheets\/[^/]+\.xml$/.test(n) || n === 'xl/sharedStrings.xml';
  let parts: Record<string, Uint8Array>;
  try {
    parts = unzipSync(bytes, { filter: (f) => isPart(f.name) });
  } catch (e) {
    throw new ImportError(file, 0, '', `damaged xlsx (not a readable zip): ${(e as Error).message}`);
  }
  if (!Object.keys(parts).some((n) => n.startsWith('xl/worksheets/'))) throw new ImportError(file, 0, '', 'damaged xlsx: no worksheet');
  for (const [name, part] of Object.entries(parts)) {
    const xml = Buffer.from(part.buffer, part.byteOffset, part.length).toString('utf8');
    const root = /<([A-Za-z_][\w:.-]*)[\s>/]/.exec(xml.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->/g, ''))?.[1];
    const end = xml.trimEnd();
    if (!root || !(end.endsWith(`</${root}>`) || (end.endsWith('/>') && end.indexOf(`<${root}`) === end.lastIndexOf('<')))) {
      throw new ImportError(file, 0, '', `damaged xlsx: ${name} is cut short${root ? ` (no closing </${root}>)` : ''}; re-export the file`);
    }
  }
}

/**
 * JSON keeps types: a prediction must be text (or null), never a number or an object — or, on a
 * multi-turn row, a list of texts (multiTurnRow checks it against the row's questions).
 */
function checkJsonPrediction(rec: Rec, file: string, line: number): void {
  const p = rec.prediction;
  if (Array.isArray(p) && p.every((x) => typeof x === 'string')) return;
  if (p !== undefined && p !== null && typeof p !== 'string') {
    throw new ImportError(
      file,
      line,
      'prediction',
      `expected text, got ${Array.isArray(p) ? 'a list' : typeof p === 'object' ? 'an object' : `the ${typeof p} ${JSON.stringify(p)}`}`,
    );
  }
}

async function forEachRow(path: string, file: string, onRow: (rec: Rec, line: number) => void): Promise<void> {
  const ext = extname(path).toLowerCase();
  if (ext === '.xlsx') {
    const bytes = await readFile(path);
    checkXlsxComplete(bytes, file);
    // Loaded here, not at the top: exceljs costs ~0.4 s of start-up that every other CLI call
    // and import would pay (docs/architecture.md, "CLI start-up").
    const { default: ExcelJS } = await import('exceljs');
    // The whole-file reader, which finds the parts through the zip's directory. ExcelJS's
    // streaming reader reads them in stored order, and when its temp copy of a worksheet stored
    // before the shared strings took longer to create than the rest of the zip took to arrive,
    // it read that sheet with no shared strings: every text cell came back as an index
    // (docs/formats.md, "xlsx").
    const wb = new ExcelJS.Workbook();
    try {
      // ExcelJS declares its own `Buffer` (an ArrayBuffer); it reads Node's at run time.
      await wb.xlsx.load(bytes as unknown as Parameters<typeof wb.xlsx.load>[0]);
    } catch (e) {
      throw new ImportError(file, 0, '', `unreadable xlsx: ${(e as Error).message}`);
    }
    const sheet = wb.worksheets[0]; // predictions live on the first sheet
    let header: Header | null = null;
    sheet?.eachRow((row, n) => {
      const values = (row.values as unknown[]).slice(1);
      if (!header) {
        header = new Header(
          values.map((v) => text(v) ?? ''),
          file,
        );
        return;
      }
      onRow(header.record(values, n), n);
    });
    return;
  }
  if (ext === '.tsv') {
    let header: Header | null = null;
    await readCsvRecords(
      path,
      file,
      (r, line) => {
        if (!header) {
          header = new Header(r, file);
          return;
        }
        const h: Header = header;
        if (r.length !== h.width) throw new ImportError(file, line, '', `malformed row: ${r.length} fields, header has ${h.width}`);
        onRow(h.record(r, line), line);
      },
      '\t',
    );
    return;
  }
  const src = await readJsonSource(path);
  const v = src.value;
  if (Array.isArray(v)) {
    v.forEach((rec) => {
      if (rec === null || typeof rec !== 'object') throw new ImportError(file, 0, '', 'expected a list of records');
      checkJsonPrediction(rec as Rec, file, src.lineOf(rec));
      onRow(rec as Rec, src.lineOf(rec));
    });
  } else if (v !== null && typeof v === 'object') {
    // pandas' default DataFrame.to_json: {column: {rowKey: value}}.
    const cols = v as Record<string, Record<string, unknown>>;
    const keys = Object.keys(cols.prediction ?? {});
    keys.forEach((k, i) => {
      const rec: Rec = {};
      for (const c of Object.keys(cols)) rec[c] = cols[c]?.[k];
      checkJsonPrediction(rec, file, i + 1);
      onRow(rec, i + 1);
    });
  } else {
    throw new ImportError(file, 1, '', 'expected VLMEvalKit records');
  }
}

type Benchmark = 'videomme' | 'videomme_v2' | 'mlvu' | null;

function benchmarkOf(dataset: string | null, header: Set<string>): Benchmark {
  const d = (dataset ?? '').toLowerCase();
  if (/^video-?mme[-_]v2$/.test(d) || header.has('group_structure')) return 'videomme_v2';
  if (/^video-?mme$/.test(d)) return 'videomme';
  if (/^mlvu(_mcq|_openended)?$/.test(d) || (header.has('SUB_DATASET') && header.has('scoring_points'))) return 'mlvu';
  return null;
}

/** Video-MME's question id of row `index` of its table: 3 questions per video, in order. */
function videoMmeIdOf(index: number): { video: string; id: string } {
  const video = String(Math.floor(index / 3) + 1).padStart(3, '0');
  return { video, id: `${video}-${(index % 3) + 1}` };
}

/** A cell holding a list: a JSON array of texts, or the Python list literal pandas writes for one. */
function listCell(v: unknown): string[] | null {
  if (Array.isArray(v)) return v.every((x) => typeof x === 'string') ? (v as string[]) : null;
  const t = text(v);
  return t !== null && t.trim().startsWith('[') ? parseListLiteral(t) : null;
}

interface Turn {
  question: string;
  answer: string;
  prediction: string;
}

/**
 * The turns of a multi-turn row (docs/formats.md "VLMEvalKit", multi-turn datasets): VLMEvalKit's
 * `TYPE == 'MT'` datasets (vlmeval/dataset/image_mt.py) hold every turn of a dialogue in one row,
 * `question` and `answer` as lists, and inference_mt.py writes `prediction` as the list of the
 * model's answers, one per turn. Null for a row that is not one (its question is not a list).
 * Lists of different lengths are refused: the turns would not line up.
 */
function multiTurnRow(rec: Rec, file: string, line: number): Turn[] | null {
  const questions = listCell(rec.question);
  const predictions = listCell(rec.prediction);
  if (Array.isArray(rec.prediction) && questions === null) throw new ImportError(file, line, 'prediction', 'expected text, got a list (and the question is not a list of turns)');
  if (questions === null || questions.length === 0 || predictions === null) return null;
  const answers = listCell(rec.answer);
  if (answers === null)
    throw new ImportError(file, line, 'answer', `expected the list of the ${questions.length} turns' reference answers, got ${JSON.stringify(text(rec.answer))}`);
  if (predictions.length !== questions.length)
    throw new ImportError(file, line, 'prediction', `${predictions.length} answer(s) for the ${questions.length} turn(s) of the question list`);
  if (answers.length !== questions.length) throw new ImportError(file, line, 'answer', `${answers.length} reference(s) for the ${questions.length} turn(s) of the question list`);
  return questions.map((question, t) => ({ question, answer: answers[t]!, prediction: predictions[t]! }));
}

export async function readVlmEvalKit(path: string, opts: ImportOptions = {}): Promise<ImportBatch> {
  const file = path;
  const stem = basename(path, extname(path));
  const rn = parseResultName(stem);
  const model = opts.model ?? rn.model;
  if (!model) throw new ImportError(file, 0, 'model', 'model unknown from the file name <model>_<dataset>_…; pass --model');
  const dataset = rn.dataset ?? 'vlmevalkit';
  if (rn.fps !== null && !opts.config) {
    throw new ImportError(file, 0, 'config', `budget is ${rn.fps} fps: the frame count varies per video and is not recorded; pass --config`);
  }
  const config = withVariant(file, resolveConfigKey(file, { frames: rn.frames, pixels: null, what: 'the file name' }, opts.config), rn.variant);
  const b = new BatchBuilder(file);
  // An outcome that differs where the prediction and the answer agree came from the judge's `score`.
  b.fieldName = (f) => (f === 'pred' ? 'prediction' : f === 'groundTruth' ? 'answer' : f === 'correct' ? 'score' : f);
  b.addConfig(
    specFor(config, {
      toolkit: 'vlmevalkit',
      sampling: { policy: null, seed: null, fps: rn.fps },
      notes: rn.fps !== null ? `${rn.fps} fps sampling: frames per video unknown` : null,
    }),
  );
  if (rn.fps !== null) b.warnings.push(`${basename(file)}: sampled at ${rn.fps} fps; the frame count per video is unknown (config ${config} as given)`);
  if (rn.guess && !opts.model) b.warnings.push(guessWarning(file, rn.guess));

  let header: Set<string> | null = null;
  let rows = 0;
  let bench: Benchmark = null;
  const kindState: { kind: 'mcqa' | 'open' | null; line: number } = { kind: null, line: 0 };
  const scorer = new OpenScorer(file);
  const closed = new ClosedScorer(file);
  const mcqClosed = new ClosedScorer(file);
  /** Per part of a concatenated dataset (SUB_DATASET): the kind its rows hold. */
  const partKinds = new Map<string, { kind: 'mcqa' | 'open' | null; line: number }>();
  const quirks = new MlvuQuirks(file);
  const derived: DerivedId[] = [];
  /** Video-MME: derived video number ↔ the file's video, each with the first line that said so. */
  const videoOfNumber = new Map<string, { video: string; line: number }>();
  const numberOfVideo = new Map<string, { number: string; line: number }>();
  const idCounts = { given: 0, derived: 0, mlvu: 0, index: 0, turns: 0 };
  /** Multi-turn rows (every turn of a dialogue in one row) or single-turn ones: a file holds one kind. */
  let turnState: { multi: boolean; line: number } | null = null;
  await forEachRow(path, file, (rec, line) => {
    rows++;
    if (!header) {
      header = new Set(Object.keys(rec));
      // LongVideoBench's rows carry `correct_choice` (a 0-based index) instead of `answer`.
      for (const c of ['prediction', 'answer']) if (!header.has(c) && !(c === 'answer' && header.has('correct_choice'))) throw new ImportError(file, 1, c, `missing column "${c}"`);
      if (!header.has('index') && !header.has('question_id')) throw new ImportError(file, 1, 'index', 'missing column "index" (or "question_id")');
      bench = benchmarkOf(rn.dataset, header);
    }
    const turns = multiTurnRow(rec, file, line);
    if (turnState === null) turnState = { multi: turns !== null, line };
    else if (turnState.multi !== (turns !== null)) {
      const what = (multi: boolean) => (multi ? 'multi-turn (a list of turns)' : 'single-turn');
      throw new ImportError(file, line, 'question', `a ${what(turns !== null)} row in a file whose rows are ${what(turnState.multi)} (from line ${turnState.line})`);
    }
    if (turns) {
      // One item per (row, turn), `<index>_<turn>` (0-based, as AVSD's are), its earlier turns as
      // the history; each turn's answer is a free-text cell scored by Token-F1 against its reference.
      const idField = header!.has('question_id') ? 'question_id' : 'index';
      const base = text(rec[idField]);
      if (!base) throw new ImportError(file, line, idField, 'empty');
      const split = opts.split ?? dataset;
      const videoId = text(rec.videoID) ?? text(rec.video);
      turns.forEach((t, k) => {
        const sampleId = `${base}_${k}`;
        checkId(sampleId, file, line, idField);
        const references = referencesOf(t.answer, file, line, `answer[${k}]`);
        const row = emptyResponse(model, split, sampleId, config, line);
        row.sourceTag = `vlmevalkit:${dataset}`;
        scorer.apply(row, { pred: t.prediction, references, given: null, givenField: 'score', referenceField: `answer[${k}]`, line });
        b.addResponse(row);
        b.addItem(
          {
            split,
            sampleId,
            question: t.question,
            taskType: text(rec.category) ?? text(rec.task_type),
            durationS: null,
            durationBucket: null,
            domain: null,
            subCategory: null,
            videoId,
            videoFile: videoId ? (/\.\w{2,4}$/.test(videoId) ? videoId : `${videoId}.mp4`) : null,
            options: null,
            answer: null,
            references,
            kind: 'open',
            context: { history: turns.slice(0, k).map((h) => ({ question: h.question, answer: h.answer })), caption: null, summary: null, prompt: null },
          },
          line,
          { question: `question[${k}]`, references: `answer[${k}]`, context: 'question' },
        );
      });
      idCounts.turns += turns.length;
      return;
    }
    const rawOptions = text(rec.candidates ?? rec.options);
    const optionsField = rec.candidates != null ? 'candidates' : 'options';
    const options = rawOptions ? parseListLiteral(rawOptions) : null;
    if (rawOptions && !options) throw new ImportError(file, line, optionsField, 'not a list of options');
    const choice = rec.answer === undefined ? text(rec.correct_choice) : null;
    const ansField = choice !== null ? 'correct_choice' : 'answer';
    const ansText = choice ?? text(rec.answer);
    const duration = text(rec.duration);
    const videoId = text(rec.videoID) ?? text(rec.video);
    const question = text(rec.question);
    const subDataset = text(rec.SUB_DATASET);
    // A concatenated dataset (TempCompass: MCQ, YorN, Captioning rows in one file): each part is a split of its own.
    const part = bench !== 'mlvu' && subDataset !== null ? subDataset : null;
    const durNum = duration !== null && /^\d+(\.\d+)?$/.test(duration) ? Number(duration) : null;
    const index = choice !== null && /^\d+$/.test(choice.trim()) ? Number(choice) : null;
    // A yes/no task (TempCompass_YorN, a part of TempCompass or its own file) is closed; elsewhere a
    // "yes" answer is one free-text answer among others, and the file stays one kind.
    const yesNoTask = /yorn|yes_?no/i.test(part ?? dataset);
    const yesNo = yesNoTask && (!options || options.length === 0) ? yesNoAnswer(ansText) : null;
    const open =
      subDataset === 'MLVU_OpenEnded' ||
      (yesNo === null && index === null && (!options || options.length === 0) && ansText !== null && ansText.trim() !== '' && !isOptionLetter(ansText.trim()));
    const kind = open ? 'open' : 'mcqa';
    if (part !== null) {
      let st = partKinds.get(part);
      if (!st) partKinds.set(part, (st = { kind: null, line: 0 }));
      checkKind(st, kind, file, line, open ? ansField : optionsField);
    } else if (bench !== 'mlvu') checkKind(kindState, kind, file, line, open ? ansField : optionsField);
    // An empty cell is NaN to pandas, so a blank MLVU answer or question may come as null: blank.
    else if (
      quirks.skip({ video: videoId, question: question ?? '', candidates: options, answer: ansText ?? '', kind }, line, {
        question: 'question',
        answer: 'answer',
        candidates: optionsField,
      })
    )
      return;

    // The sample id: the benchmark's own (see the header).
    let sampleId: string | null;
    let idField = 'question_id';
    const givenId = text(rec.question_id) ?? (header?.has('correct_choice') ? text(rec.id) : null);
    if (givenId != null && givenId !== '') {
      // LongVideoBench: its own `id` (the id lmms-eval's lvb_acc names), so the two join.
      if (rec.question_id == null) idField = 'id';
      sampleId = givenId;
      idCounts.given++;
    } else if (part !== null && text(rec.original_index) !== null) {
      // A concatenated dataset's row: its index in its own part (the concat renumbers `index`).
      idField = 'original_index';
      sampleId = text(rec.original_index);
      idCounts.index++;
    } else if (bench === 'videomme') {
      idField = 'index';
      const raw = text(rec.index);
      const index = raw !== null && /^\d+$/.test(raw.trim()) ? Number(raw) : Number.NaN;
      if (!Number.isSafeInteger(index)) throw new ImportError(file, line, 'index', `expected the row number of Video-MME's table, got ${JSON.stringify(raw)}`);
      const d = videoMmeIdOf(index);
      if (videoId) {
        const byNumber = videoOfNumber.get(d.video);
        if (byNumber && byNumber.video !== videoId) {
          throw new ImportError(
            file,
            line,
            'index',
            `index ${index} makes this video ${videoId} Video-MME video ${d.video}, but line ${byNumber.line} put video ${byNumber.video} there: the rows are not Video-MME's table order; add a question_id column`,
          );
        }
        const byVideo = numberOfVideo.get(videoId);
        if (byVideo && byVideo.number !== d.video) {
          throw new ImportError(
            file,
            line,
            'index',
            `index ${index} makes video ${videoId} Video-MME video ${d.video}, but line ${byVideo.line} made it ${byVideo.number}: the rows are not Video-MME's table order; add a question_id column`,
          );
        }
        if (!byNumber) videoOfNumber.set(d.video, { video: videoId, line });
        if (!byVideo) numberOfVideo.set(videoId, { number: d.video, line });
      }
      sampleId = d.id;
      idCounts.derived++;
    } else if (bench === 'mlvu') {
      idField = 'question';
      sampleId = sampleIdOf({ video: videoId ?? undefined, question: question ?? '' });
      idCounts.mlvu++;
    } else {
      idField = 'index';
      sampleId = text(rec.index);
      idCounts.index++;
    }
    if (!sampleId) throw new ImportError(file, line, idField, 'empty');
    checkId(sampleId, file, line, idField);

    let split: string;
    if (bench === 'mlvu') split = mlvuSplit(kind, opts.split ? (open ? `${opts.split}_gen` : opts.split) : undefined);
    else if (part !== null) split = opts.split ? `${opts.split}_${part}` : part;
    else if (opts.split) split = splitFor(opts.split, duration, file, line, 'duration');
    else split = bench === 'videomme' ? 'videomme' : bench === 'videomme_v2' ? 'videomme_v2' : dataset;
    if (idField === 'index' && bench === 'videomme') derived.push({ split, sampleId, question, videoId, line, field: 'index' });

    const itemBase = {
      split,
      sampleId,
      question,
      taskType: text(rec.task_type) ?? text(rec.question_type) ?? text(rec.second_head) ?? text(rec.question_category) ?? text(rec.dim),
      durationS: durNum,
      durationBucket: durNum === null ? duration : null,
      domain: text(rec.domain),
      subCategory: text(rec.sub_category) ?? text(rec.third_head),
      videoId: videoId && bench === 'mlvu' ? basename(videoId, extname(videoId)) : videoId,
      videoFile: videoId ? (/\.\w{2,4}$/.test(videoId) ? videoId : `${videoId}.mp4`) : null,
    };
    if (open) {
      // The answer column holds one reference; a Python list literal of several is read as such.
      const listed = ansText !== null && ansText.trim().startsWith('[') ? parseListLiteral(ansText) : null;
      const references = referencesOf(listed ?? ansText, file, line, 'answer');
      if (rec.prediction != null && typeof rec.prediction === 'object' && text(rec.prediction) === null) {
        throw new ImportError(file, line, 'prediction', 'expected text');
      }
      const row = emptyResponse(model, split, sampleId, config, line);
      row.sourceTag = `vlmevalkit:${dataset}`;
      scorer.apply(row, {
        pred: text(rec.prediction),
        references,
        given: parseScore(typeof rec.score === 'object' && rec.score !== null ? text(rec.score) : rec.score, file, line, 'score'),
        givenField: 'score',
        referenceField: 'answer',
        line,
      });
      b.addResponse(row);
      b.addItem({ ...itemBase, options: null, answer: null, references, kind: 'open' }, line, { references: 'answer' });
      return;
    }
    const predText = rec.prediction;
    if (predText != null && typeof predText === 'object' && text(predText) === null) {
      throw new ImportError(file, line, 'prediction', 'expected text');
    }
    // The row's own outcome (VLMEvalKit's `_score` files: 1 / 0, −1 where it could not judge) is
    // kept where it is 0 or 1 (closed-answer.ts); otherwise the letters decide.
    const ownScore = rec.score == null || text(rec.score) === '-1' ? null : parseScore(typeof rec.score === 'object' ? text(rec.score) : rec.score, file, line, 'score');
    const given = ownScore === null ? null : { value: ownScore, field: 'score' };
    const row = emptyResponse(model, split, sampleId, config, line);
    row.sourceTag = `vlmevalkit:${dataset}`;
    if (yesNo !== null) {
      // A yes/no row (TempCompass_YorN): a closed two-option item, never free text.
      const said = extractYesNo(text(predText));
      closed.apply(row, { pred: said === null ? null : yesNoLetter(said), answer: yesNoLetter(yesNo), given, line });
      b.addResponse(row);
      b.addItem({ ...itemBase, options: [...YES_NO_OPTIONS], answer: yesNoLetter(yesNo), kind: 'mcqa' }, line);
      return;
    }
    let answer: string | null = null;
    if (index !== null) {
      // LongVideoBench's correct_choice: 0-based over the candidates.
      const count = options?.length ?? 8;
      answer = index < count ? optionLetterAt(index) : null;
      if (answer === null) throw new ImportError(file, line, ansField, `option index ${index} is past the ${count} candidates (0-based)`);
    } else if (bench === 'mlvu') {
      // MLVU's own letter (mlvu.ts answerLetter): the last equal candidate, a blank answer's blank candidate.
      const letter = answerLetter(ansText ?? '', options);
      if (!letter) throw new ImportError(file, line, ansField, `answer ${JSON.stringify(ansText)} is neither a letter nor one of the options`);
      answer = letter;
    } else if (ansText) {
      if (isOptionLetter(ansText.trim())) answer = ansText.trim();
      else {
        const i = options ? options.findIndex((o, k) => o.trim() === ansText.trim() || stripOptionPrefix(o, k) === ansText.trim()) : -1;
        const lettered = /^([A-H])[.)]\s/.exec(ansText.trim());
        // Letters stop at H: a ninth option's text is no answer.
        const letter = optionLetterAt(i) ?? lettered?.[1];
        if (!letter) throw new ImportError(file, line, ansField, `answer ${JSON.stringify(ansText)} is neither a letter nor one of the options`);
        answer = letter;
      }
    }
    const pred = extractOptionLetter(text(predText), lastOptionLetter(options));
    if (answer !== null && given !== null) mcqClosed.apply(row, { pred, answer, given, line });
    else {
      row.pred = pred;
      row.groundTruth = answer;
      row.correct = answer === null ? null : pred === answer;
    }
    b.addResponse(row);
    b.addItem({ ...itemBase, options: options ? options.map(stripOptionPrefix) : null, answer, kind: 'mcqa' }, line, { answer: ansField });
  });
  // A file with no data rows is damaged or the wrong file; importing it would change nothing silently.
  if (rows === 0) throw new ImportError(file, 0, '', 'no prediction rows (an empty file, or a header only)');
  b.warnings.push(...scorer.warnings(), ...closed.warnings('yes/no'), ...mcqClosed.warnings('multiple-choice'), ...quirks.warnings());
  const name = basename(file);
  let how: string | null = null;
  if (idCounts.derived > 0) {
    how =
      `${name}: no question_id column — ${idCounts.derived} item id(s) derived from Video-MME's structure ` +
      `(index i → question <⌊i/3⌋+1>-<i mod 3 + 1>, e.g. 0 → 001-1; 3 questions per video, checked against each row's video)`;
  } else if (idCounts.mlvu > 0) {
    b.warnings.push(`${name}: ${idCounts.mlvu} item id(s) are MLVU's <video>#<sha1(question)>, the ids of MLVU's metadata files`);
  } else if (idCounts.turns > 0) {
    b.warnings.push(
      `${name}: multi-turn rows: ${idCounts.turns} item(s), one per turn, <index>_<turn>; each turn's earlier turns are its history (the dataset's reference answers: the model itself was given its own earlier answers)`,
    );
  } else if (idCounts.index > 0 && idCounts.given === 0) {
    b.warnings.push(`${name}: no question_id column — items are keyed by VLMEvalKit's row index (${dataset} is not a benchmark whose ids Flipbook can derive)`);
  }
  if (how) b.warnings.push(how);
  const batch = b.finish({ sourcePath: path, sha256: await sha256File(path), format: 'vlmevalkit', toolkit: 'vlmevalkit', modelArgs: null });
  if (how) batch.derivedIds = { how, rows: derived };
  return batch;
}

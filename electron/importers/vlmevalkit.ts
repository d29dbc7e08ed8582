import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { unzipSync } from 'fflate';
import type { ImportBatch } from '../../shared/domain/types';
import { BatchBuilder, emptyResponse, expandSplit, type ImportOptions } from './batch-builder';
import { resolveConfigKey, specFor } from './config-keys';
import { readCsvRecords } from './csv-records';
import { ImportError } from './errors';
import { Header } from './header';
import { budgetFromName } from './file-name-budget';
import { sha256File } from './file-hash';
import { readJsonSource } from './json-source';
import { checkId } from './text-input';
import { parseListLiteral } from './list-literal';
import { stripOptionPrefix } from './mcq-text';
import { OpenScorer, checkKind, parseScore, referencesOf } from './open-ended';
import { extractOptionLetter, isOptionLetter, letterOf } from './option-letter';

/**
 * VLMEvalKit prediction files: `<model>_<dataset>[_<N>frame | _<x>fps][_…].{xlsx,tsv,json}`.
 * Columns used: `index`, `question_id` (preferred as the sample id), `video`/`videoID`,
 * `question`, `candidates` or `options`, `answer`, `prediction`, `task_type`/`question_type`,
 * `duration`, `domain`, `sub_category`. The letter is extracted from `prediction`
 * (option-letter.ts). Budget: `64frame` → frames 64; `1fps` → the frame count varies per
 * video and is unknown, so --config is required and the fps is recorded in sampling.
 * Model: --model or the name's first part; split: --split (`{duration}` allowed) or the
 * dataset name. "Line" is the spreadsheet/TSV row (header = 1) or the JSON record's line.
 *
 * Open-ended datasets (no `candidates`/`options` value and an `answer` that is free text, not
 * a letter): `pred` is the `prediction` text, the score is the row's `score` in [0, 1] when
 * the file has one, else Token-F1 against `answer` (open-ended.ts); items get `references`.
 * A file holds one kind: a multiple-choice row among open-ended ones is rejected.
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
 * ExcelJS's streaming reader stops quietly where a worksheet's XML ends: a sheet cut short
 * (a truncated write, a damaged copy) would import its first rows as if they were all. Each
 * worksheet and the shared strings must end with their root's closing tag, and the zip itself
 * must be readable, before a row is read.
 */
async function checkXlsxComplete(path: string, file: string): Promise<void> {
  const isPart = (n: string): boolean => /^xl\/worksheets\/[^/]+\.xml$/.test(n) || n === 'xl/sharedStrings.xml';
  let parts: Record<string, Uint8Array>;
  try {
    parts = unzipSync(await readFile(path), { filter: (f) => isPart(f.name) });
  } catch (e) {
    throw new ImportError(file, 0, '', `damaged xlsx (not a readable zip): ${(e as Error).message}`);
  }
  if (!Object.keys(parts).some((n) => n.startsWith('xl/worksheets/'))) throw new ImportError(file, 0, '', 'damaged xlsx: no worksheet');
  for (const [name, bytes] of Object.entries(parts)) {
    const xml = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
    const root = /<([A-Za-z_][\w:.-]*)[\s>/]/.exec(xml.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->/g, ''))?.[1];
    const end = xml.trimEnd();
    if (!root || !(end.endsWith(`</${root}>`) || (end.endsWith('/>') && end.indexOf(`<${root}`) === end.lastIndexOf('<')))) {
      throw new ImportError(file, 0, '', `damaged xlsx: ${name} is cut short${root ? ` (no closing </${root}>)` : ''}; re-export the file`);
    }
  }
}

/** JSON keeps types: a prediction must be text (or null), never a number or an object. */
function checkJsonPrediction(rec: Rec, file: string, line: number): void {
  const p = rec.prediction;
  if (p !== undefined && p !== null && typeof p !== 'string') {
    throw new ImportError(file, line, 'prediction', `expected text, got ${Array.isArray(p) ? 'a list' : typeof p === 'object' ? 'an object' : `the ${typeof p} ${JSON.stringify(p)}`}`);
  }
}

async function forEachRow(path: string, file: string, onRow: (rec: Rec, line: number) => void): Promise<void> {
  const ext = extname(path).toLowerCase();
  if (ext === '.xlsx') {
    await checkXlsxComplete(path, file);
    // Loaded here, not at the top: exceljs costs ~0.4 s of start-up that every other CLI call
    // and import would pay (docs/architecture.md, "CLI start-up").
    const { default: ExcelJS } = await import('exceljs');
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(path, { sharedStrings: 'cache', worksheets: 'emit' });
    let header: Header | null = null;
    try {
      for await (const sheet of reader) {
        for await (const row of sheet) {
          const values = (row.values as unknown[]).slice(1);
          if (!header) {
            header = new Header(values.map((v) => text(v) ?? ''), file);
            continue;
          }
          onRow(header.record(values, row.number), row.number);
        }
        break; // predictions live on the first sheet
      }
    } catch (e) {
      if (e instanceof ImportError) throw e;
      throw new ImportError(file, 0, '', `unreadable xlsx: ${(e as Error).message}`);
    }
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

export async function readVlmEvalKit(path: string, opts: ImportOptions = {}): Promise<ImportBatch> {
  const file = path;
  const stem = basename(path, extname(path));
  const nb = budgetFromName(stem);
  const model = opts.model ?? (nb.before.length > 1 ? nb.before[0] : null);
  if (!model) throw new ImportError(file, 0, 'model', 'model unknown from the file name <model>_<dataset>_…; pass --model');
  const dataset = nb.before.slice(1).join('_') || 'vlmevalkit';
  if (nb.fps !== null && !opts.config) {
    throw new ImportError(file, 0, 'config', `budget is ${nb.fps} fps: the frame count varies per video and is not recorded; pass --config`);
  }
  const config = resolveConfigKey(file, { frames: nb.frames, pixels: null, what: 'the file name' }, opts.config);
  const b = new BatchBuilder(file);
  b.fieldName = (f) => (f === 'pred' ? 'prediction' : f === 'groundTruth' ? 'answer' : f);
  b.addConfig(specFor(config, { toolkit: 'vlmevalkit', sampling: { policy: null, seed: null, fps: nb.fps }, notes: nb.fps !== null ? `${nb.fps} fps sampling: frames per video unknown` : null }));
  if (nb.fps !== null) b.warnings.push(`${basename(file)}: sampled at ${nb.fps} fps; the frame count per video is unknown (config ${config} as given)`);

  let header: Set<string> | null = null;
  let rows = 0;
  const kindState: { kind: 'mcqa' | 'open' | null; line: number } = { kind: null, line: 0 };
  const scorer = new OpenScorer(file);
  await forEachRow(path, file, (rec, line) => {
    rows++;
    if (!header) {
      header = new Set(Object.keys(rec));
      for (const c of ['prediction', 'answer']) if (!header.has(c)) throw new ImportError(file, 1, c, `missing column "${c}"`);
      if (!header.has('index') && !header.has('question_id')) throw new ImportError(file, 1, 'index', 'missing column "index" (or "question_id")');
    }
    const idField = rec.question_id != null && rec.question_id !== '' ? 'question_id' : 'index';
    const sampleId = text(rec[idField]);
    if (!sampleId) throw new ImportError(file, line, idField, 'empty');
    checkId(sampleId, file, line, idField);
    const rawOptions = text(rec.candidates ?? rec.options);
    const options = rawOptions ? parseListLiteral(rawOptions) : null;
    if (rawOptions && !options) throw new ImportError(file, line, rec.candidates != null ? 'candidates' : 'options', 'not a list of options');
    const ansText = text(rec.answer);
    const duration = text(rec.duration);
    const split = opts.split ? expandSplit(opts.split, duration) : dataset;
    const videoId = text(rec.videoID) ?? text(rec.video);
    const durNum = duration !== null && /^\d+(\.\d+)?$/.test(duration) ? Number(duration) : null;
    const open = (!options || options.length === 0) && ansText !== null && ansText.trim() !== '' && !isOptionLetter(ansText.trim());
    checkKind(kindState, open ? 'open' : 'mcqa', file, line, open ? 'answer' : rec.candidates != null ? 'candidates' : 'options');
    const itemBase = {
      split,
      sampleId,
      question: text(rec.question),
      taskType: text(rec.task_type) ?? text(rec.question_type),
      durationS: durNum,
      durationBucket: durNum === null ? duration : null,
      domain: text(rec.domain),
      subCategory: text(rec.sub_category),
      videoId,
      videoFile: videoId ? (/\.\w{2,4}$/.test(videoId) ? videoId : `${videoId}.mp4`) : null,
    };
    if (open) {
      // The answer column holds one reference; a Python list literal of several is read as such.
      const listed = ansText.trim().startsWith('[') ? parseListLiteral(ansText) : null;
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
    let answer: string | null = null;
    if (ansText) {
      if (isOptionLetter(ansText.trim())) answer = ansText.trim();
      else {
        const i = options ? options.findIndex((o, k) => o.trim() === ansText.trim() || stripOptionPrefix(o, k) === ansText.trim()) : -1;
        if (i < 0) throw new ImportError(file, line, 'answer', `answer ${JSON.stringify(ansText)} is neither a letter nor one of the options`);
        answer = letterOf(i);
      }
    }
    const predText = rec.prediction;
    if (predText != null && typeof predText === 'object' && text(predText) === null) {
      throw new ImportError(file, line, 'prediction', 'expected text');
    }
    const maxLetter = options && options.length > 0 ? letterOf(Math.min(options.length, 8) - 1) : 'H';
    const pred = extractOptionLetter(text(predText), maxLetter);
    const row = emptyResponse(model, split, sampleId, config, line);
    row.pred = pred;
    row.groundTruth = answer;
    row.correct = answer === null ? null : pred === answer;
    row.sourceTag = `vlmevalkit:${dataset}`;
    b.addResponse(row);
    b.addItem({ ...itemBase, options: options ? options.map(stripOptionPrefix) : null, answer, kind: 'mcqa' }, line);
  });
  // A file with no data rows is damaged or the wrong file; importing it would change nothing silently.
  if (rows === 0) throw new ImportError(file, 0, '', 'no prediction rows (an empty file, or a header only)');
  b.warnings.push(...scorer.warnings());
  return b.finish({ sourcePath: path, sha256: await sha256File(path), format: 'vlmevalkit', toolkit: 'vlmevalkit', modelArgs: null });
}

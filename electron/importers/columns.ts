/**
 * The generic escape hatch (docs/formats.md "Any table: --columns"): a CSV, TSV or JSONL file
 * of any toolkit, read through `--columns sample_id=<col>,prediction=<col>,answer=<col>,…` that
 * names which of its columns holds what. The same rules and errors as every reader: a column
 * the mapping names must exist, every bad cell is `file:line: <column>: reason`, and the
 * import is one transaction.
 *
 * Roles: `sample_id` and `prediction` are required; `answer` (a letter, an option's text, or a
 * 0-based index into `options`; free text makes the file open-ended), `options` (a JSON or
 * Python list, or one option per line), `config` / `model` / `split` (else `--config`,
 * `--model`, `--split`), `correct` (the row's own 0/1 outcome, kept), `score` (an open-ended
 * row's own score in [0, 1]), `question`, `video`, `task_type`, `confidence`, `latency_ms`.
 */
import { extname } from 'node:path';
import type { ImportBatch } from '../../shared/domain/types';
import { parseConfigKey } from '../../shared/engine/config';
import { BatchBuilder, emptyResponse, splitFor, type ImportOptions } from './batch-builder';
import { specFor } from './config-keys';
import { readCsvRecords } from './csv-records';
import { ImportError } from './errors';
import { sha256File } from './file-hash';
import { Header } from './header';
import { readLines } from './line-reader';
import { parseListLiteral } from './list-literal';
import { stripOptionPrefix } from './mcq-text';
import { OpenScorer, checkKind, parseScore, referencesOf } from './open-ended';
import { extractOptionLetter, isOptionLetter, optionLetterAt, lastOptionLetter } from './option-letter';
import { parsePythonJson } from './py-json';

export const COLUMN_ROLES = [
  'sample_id',
  'prediction',
  'answer',
  'options',
  'config',
  'model',
  'split',
  'correct',
  'score',
  'question',
  'video',
  'task_type',
  'confidence',
  'latency_ms',
] as const;
export type ColumnRole = (typeof COLUMN_ROLES)[number];

/** `sample_id=qid,prediction=pred` → role → column; refused as `--columns: …` when malformed. */
export function parseColumnsOption(value: string): Map<ColumnRole, string> {
  const out = new Map<ColumnRole, string>();
  for (const part of value.split(',')) {
    const t = part.trim();
    if (t === '') continue;
    const eq = t.indexOf('=');
    if (eq <= 0 || eq === t.length - 1) throw new Error(`"${t}" is not role=column (e.g. sample_id=question_id)`);
    const role = t.slice(0, eq).trim() as ColumnRole;
    const col = t.slice(eq + 1).trim();
    if (!COLUMN_ROLES.includes(role)) throw new Error(`unknown role "${role}" (one of ${COLUMN_ROLES.join(', ')})`);
    if (out.has(role)) throw new Error(`role "${role}" is given twice`);
    out.set(role, col);
  }
  for (const need of ['sample_id', 'prediction'] as const) if (!out.has(need)) throw new Error(`needs ${need}=<column>`);
  return out;
}

type Rec = Record<string, unknown>;

const text = (v: unknown): string | null => (v === null || v === undefined ? null : typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null);

async function forEachRecord(path: string, file: string, onRow: (rec: Rec, line: number, header: readonly string[]) => void): Promise<void> {
  const ext = extname(path).toLowerCase();
  if (ext === '.jsonl') {
    for await (const { line, text: t, terminated } of readLines(path, file)) {
      if (t.trim() === '') continue;
      let v: unknown;
      try {
        v = parsePythonJson(t);
      } catch (e) {
        throw new ImportError(file, line, '', terminated ? `malformed JSON: ${(e as Error).message}` : 'truncated JSONL line (the file ends mid-record)');
      }
      if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new ImportError(file, line, '', 'expected one JSON object per line');
      onRow(v as Rec, line, Object.keys(v));
    }
    return;
  }
  if (ext !== '.csv' && ext !== '.tsv') throw new ImportError(file, 0, '', `--columns reads .csv, .tsv or .jsonl files, not ${ext || 'this file'}`);
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
      onRow(h.record(r, line), line, h.names);
    },
    ext === '.tsv' ? '\t' : ',',
  );
}

function optionsOf(v: string | null, file: string, line: number, column: string): string[] | null {
  if (v === null || v.trim() === '') return null;
  const t = v.trim();
  if (t.startsWith('[')) {
    const list = parseListLiteral(t);
    if (!list) throw new ImportError(file, line, column, 'not a list of options');
    return list.map((o, k) => stripOptionPrefix(o, k));
  }
  // Blank lines are dropped before the letters are counted: "A. red", "", "B. blue" is two options.
  return t
    .split('\n')
    .map((o) => o.trim())
    .filter((o) => o !== '')
    .map((o, k) => stripOptionPrefix(o, k));
}

export async function readColumns(path: string, opts: ImportOptions & { columns: string }): Promise<ImportBatch> {
  const file = path;
  let map: Map<ColumnRole, string>;
  try {
    map = parseColumnsOption(opts.columns);
  } catch (e) {
    throw new ImportError(file, 0, 'columns', `--columns: ${(e as Error).message}`);
  }
  const col = (role: ColumnRole) => map.get(role);
  if (!col('model') && !opts.model) throw new ImportError(file, 0, 'model', '--columns without model=<column>: pass --model');
  if (!col('split') && !opts.split) throw new ImportError(file, 0, 'split', '--columns without split=<column>: pass --split');
  if (!col('config') && !opts.config) throw new ImportError(file, 0, 'config', '--columns without config=<column>: pass --config (e.g. 16f_151k)');
  const b = new BatchBuilder(file);
  const names: Partial<Record<string, string>> = {
    sampleId: col('sample_id'),
    pred: col('prediction'),
    groundTruth: col('answer'),
    config: col('config'),
    model: col('model'),
    split: col('split'),
  };
  b.fieldName = (f) => names[f as string] ?? String(f);
  const scorer = new OpenScorer(file);
  const kindState: { kind: 'mcqa' | 'open' | null; line: number } = { kind: null, line: 0 };
  const seenConfigs = new Set<string>();
  let checked = false;
  let kept = 0;

  await forEachRecord(path, file, (rec, line, header) => {
    if (!checked) {
      for (const [role, c] of map) if (!header.includes(c)) throw new ImportError(file, 1, c, `no such column for ${role}= (the file has ${header.join(', ')})`);
      checked = true;
    }
    const get = (role: ColumnRole): string | null => {
      const c = col(role);
      if (c === undefined) return null;
      const v = rec[c];
      if (v !== null && v !== undefined && typeof v === 'object') throw new ImportError(file, line, c, 'expected text or a number');
      return text(v);
    };
    const sampleId = get('sample_id');
    if (sampleId === null || sampleId.trim() === '') throw new ImportError(file, line, col('sample_id')!, 'empty sample id');
    const model = get('model') ?? opts.model!;
    const config = get('config') ?? opts.config!;
    try {
      parseConfigKey(config);
    } catch (e) {
      throw new ImportError(file, line, col('config') ?? 'config', (e as Error).message);
    }
    if (!seenConfigs.has(config)) {
      seenConfigs.add(config);
      b.addConfig(specFor(config, { toolkit: 'columns' }));
    }
    const split = col('split') ? (get('split') ?? '') : splitFor(opts.split!, null, file, line, 'split');
    if (split.trim() === '') throw new ImportError(file, line, col('split') ?? 'split', 'empty split');
    const options = optionsOf(get('options'), file, line, col('options') ?? 'options');
    const answer = get('answer');
    const prediction = get('prediction');
    const ansIndex = answer !== null && /^\d{1,2}$/.test(answer.trim()) && options ? Number(answer) : null;
    const open = !options && answer !== null && answer.trim() !== '' && !isOptionLetter(answer.trim());
    checkKind(kindState, open ? 'open' : 'mcqa', file, line, col(open ? 'answer' : 'options') ?? 'answer');
    const row = emptyResponse(model, split, sampleId, config, line);
    row.sourceTag = 'columns';
    const conf = get('confidence');
    if (conf !== null && conf.trim() !== '') {
      const n = Number(conf);
      if (!Number.isFinite(n) || n < 0 || n > 1) throw new ImportError(file, line, col('confidence')!, `expected a probability in [0, 1], got ${JSON.stringify(conf)}`);
      row.confidence = n;
    }
    const lat = get('latency_ms');
    if (lat !== null && lat.trim() !== '') {
      const n = Number(lat);
      if (!Number.isFinite(n) || n < 0) throw new ImportError(file, line, col('latency_ms')!, `expected milliseconds ≥ 0, got ${JSON.stringify(lat)}`);
      row.latencyMs = n;
    }
    // An empty cell is no value: an item without a question has none, not "".
    const filled = (role: ColumnRole): string | null => {
      const v = get(role);
      return v === null || v.trim() === '' ? null : v;
    };
    const video = filled('video');
    const item = {
      split,
      sampleId,
      question: filled('question'),
      taskType: filled('task_type'),
      videoId: video,
      videoFile: video ? (/\.\w{2,4}$/.test(video) ? video : `${video}.mp4`) : null,
    };
    if (open) {
      const references = referencesOf(answer, file, line, col('answer')!);
      scorer.apply(row, {
        pred: prediction,
        references,
        given: parseScore(get('score'), file, line, col('score') ?? 'score'),
        givenField: col('score') ?? 'score',
        referenceField: col('answer')!,
        line,
      });
      b.addResponse(row);
      b.addItem({ ...item, options: null, answer: null, references, kind: 'open' }, line, { references: col('answer')! });
      return;
    }
    let letter: string | null = null;
    if (ansIndex !== null) {
      letter = ansIndex < options!.length ? optionLetterAt(ansIndex) : null;
      if (letter === null) throw new ImportError(file, line, col('answer')!, `option index ${ansIndex} is past the ${options!.length} options (0-based)`);
    } else if (answer !== null && answer.trim() !== '') {
      const a = answer.trim();
      if (isOptionLetter(a)) letter = a;
      else {
        // The option's text, bare or behind its own letter ("B. blue" is option B's "blue").
        const i = options ? options.findIndex((o, k) => o.trim() === a || o.trim() === stripOptionPrefix(a, k)) : -1;
        letter = optionLetterAt(i);
        if (letter === null)
          throw new ImportError(file, line, col('answer')!, `${JSON.stringify(answer)} is neither an option letter A–H, a 0-based index, nor one of the options`);
      }
    }
    row.pred = extractOptionLetter(prediction, lastOptionLetter(options));
    row.groundTruth = letter;
    const own = get('correct');
    if (own !== null && own.trim() !== '') {
      const t = own.trim().toLowerCase();
      const v = t === '1' || t === 'true' ? 1 : t === '0' || t === 'false' ? 0 : null;
      if (v === null) throw new ImportError(file, line, col('correct')!, `expected 0 or 1, got ${JSON.stringify(own)}`);
      row.correct = v === 1;
      kept++;
    } else row.correct = letter === null ? null : row.pred === letter;
    b.addResponse(row);
    b.addItem({ ...item, options, answer: letter, kind: 'mcqa' }, line, { answer: col('answer') ?? 'answer', options: col('options') ?? 'options' });
  });
  if (b.responses.length === 0) throw new ImportError(file, 0, '', 'no rows');
  b.warnings.push(...scorer.warnings());
  if (kept > 0) b.warnings.push(`${file}: ${kept} row(s) keep their own outcome (${col('correct')})`);
  return b.finish({ sourcePath: path, sha256: await sha256File(path), format: 'columns', toolkit: null, modelArgs: `columns: ${opts.columns}` });
}

/**
 * AVSD (DSTC7 / DSTC8 Audio Visual Scene-Aware Dialog), docs/formats.md "AVSD". Three files, all
 * format `avsd`, told apart by content:
 *
 * - a **reference** — the challenge's dialog file (`train|valid|test_set4DSTC7-AVSD.json`,
 *   `test_set4DSTC8-AVSD.json`): `{dialogs: [{image_id, caption, summary, dialog: [{question,
 *   answer}, …]}]}`. A test set's dialogs end at the turn to answer, whose answer is
 *   `__UNDISCLOSED__`; those turns are the evaluated ones, otherwise every turn is (the
 *   baseline generates, and `get_hypotheses.py` without `-l` scores, every turn);
 * - the **multi-reference** file (`test_set4DSTC7-AVSD_multiref.json`), COCO caption layout as
 *   the challenge's `evaluate.py` reads it: `{images: [{name: "<image_id>_<turn>", id}],
 *   annotations: [{image_id: <that id>, caption}]}`, several captions per image: the test
 *   set's references of that turn, replacing the dialog's own answer;
 * - a **result** — a system's output in the dialog layout (`avsd_generate.py` writes the whole
 *   dialog with its hypothesis in every turn; the DSTC8 winners' `generate.py` only the
 *   evaluated last turn, `dialog[-1:]`), no caption or summary.
 *
 * One item per (dialog, evaluated turn), sample id `<image_id>_<turn>` (0-based turn: the
 * challenge's own `%s_%d` naming, so one dialog and turn from two configs join), split
 * `--split` or `AVSD`, video `<image_id>.mp4` (Charades). Its context is every earlier turn of
 * the reference dialog (question and answer), the caption and the summary; its references the
 * multi-reference captions, else the turn's own answer. A result cell's text is the generated
 * answer and its score Token-F1 against the best reference (docs/metrics.md §4, §7).
 *
 * A result is read against the reference and multi-reference files of the same import (or
 * `--ground-truth`): a dialog the reference lacks or lacks from the result, a turn count that
 * is neither the reference's nor its evaluated turns', another question at a turn, an empty or
 * still undisclosed answer, and an evaluated turn without any reference are refused as
 * file:line: field: reason, and the import changes nothing.
 */
import { stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import * as z from 'zod';
import type { ImportBatch, ItemMeta } from '../../shared/domain/types';
import { BatchBuilder, emptyResponse, parseWith, type ImportOptions } from './batch-builder';
import { guessWarning, resolveConfigKey, specFor, withVariant } from './config-keys';
import { ImportError } from './errors';
import { sha256File } from './file-hash';
import { parseResultName } from './file-name-budget';
import { readJsonSource, type JsonSource } from './json-source';
import { readHead } from './line-reader';
import { OpenScorer } from './open-ended';

export const UNDISCLOSED = '__UNDISCLOSED__';
export const AVSD_SPLIT = 'AVSD';

const Turn = z.object({ question: z.string(), answer: z.string() }).passthrough();
const Dialog = z
  .object({
    image_id: z.string().min(1),
    caption: z.string().nullish(),
    summary: z.string().nullish(),
    dialog: z.array(Turn),
  })
  .passthrough();
const Dialogs = z.object({ dialogs: z.array(z.unknown()) }).passthrough();
const Multiref = z
  .object({
    images: z.array(z.object({ name: z.string().min(1), id: z.union([z.number(), z.string()]) }).passthrough()),
    annotations: z.array(z.object({ image_id: z.union([z.number(), z.string()]), caption: z.string() }).passthrough()),
  })
  .passthrough();

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Which of the three AVSD files a parsed document is (null: none of them). */
export function avsdRole(value: unknown): 'reference' | 'result' | 'multiref' | null {
  if (!isRecord(value)) return null;
  if (Array.isArray(value.images) && Array.isArray(value.annotations)) return 'multiref';
  if (!Array.isArray(value.dialogs)) return null;
  const first = value.dialogs.find(isRecord);
  if (!first || !('image_id' in first) || !Array.isArray(first.dialog)) return null;
  // The challenge's dialog files describe each video; a system's result copies only the dialog.
  return value.dialogs.some((d) => isRecord(d) && ('caption' in d || 'summary' in d)) ? 'reference' : 'result';
}

interface RefDialog {
  imageId: string;
  caption: string | null;
  summary: string | null;
  turns: { question: string; answer: string }[];
  /** Evaluated turn indices, ascending. */
  evaluated: number[];
  file: string;
  line: number;
}

/** The reference dialogs and multi-references of one import, by image id. */
export interface AvsdReferences {
  dialogs: Map<string, RefDialog>;
  /** `<image_id>_<turn>` → reference captions (the multi-reference file). */
  multiref: Map<string, string[]>;
  /** Per reference file: its dialogs' image ids in file order. */
  files: Map<string, string[]>;
  multirefFiles: string[];
}

function readReference(file: string, src: JsonSource, into: AvsdReferences): void {
  const root = parseWith(Dialogs, src.value, file, 1);
  const ids: string[] = [];
  root.dialogs.forEach((raw, i) => {
    const line = src.lineOf(raw);
    const d = parseWith(Dialog, raw, file, line, `dialogs[${i}]`);
    const prev = into.dialogs.get(d.image_id);
    if (prev) {
      throw new ImportError(file, line, `dialogs[${i}].image_id`, `dialog ${d.image_id} is also at ${prev.file}:${prev.line}: one dialog per video in a reference set`);
    }
    const turns = d.dialog.map((t) => ({ question: t.question, answer: t.answer }));
    if (turns.length === 0) throw new ImportError(file, line, `dialogs[${i}].dialog`, `dialog ${d.image_id} has no turns`);
    const undisclosed = turns.flatMap((t, j) => (t.answer.trim() === UNDISCLOSED ? [j] : []));
    into.dialogs.set(d.image_id, {
      imageId: d.image_id,
      caption: d.caption ?? null,
      summary: d.summary ?? null,
      turns,
      evaluated: undisclosed.length > 0 ? undisclosed : turns.map((_, j) => j),
      file,
      line,
    });
    ids.push(d.image_id);
  });
  into.files.set(file, ids);
}

function readMultiref(file: string, src: JsonSource, into: AvsdReferences): void {
  const m = parseWith(Multiref, src.value, file, 1);
  // Lines are known for the parsed document's own objects, not zod's copies.
  const raw = src.value as { images: unknown[]; annotations: unknown[] };
  const nameOf = new Map<string, string>();
  m.images.forEach((img, i) => {
    const key = String(img.id);
    if (nameOf.has(key)) throw new ImportError(file, src.lineOf(raw.images[i]), 'images.id', `image id ${key} is listed twice`);
    nameOf.set(key, img.name);
  });
  m.annotations.forEach((a, i) => {
    const name = nameOf.get(String(a.image_id));
    if (name === undefined) throw new ImportError(file, src.lineOf(raw.annotations[i]), 'annotations.image_id', `no image with id ${String(a.image_id)}`);
    const list = into.multiref.get(name);
    if (list) list.push(a.caption);
    else into.multiref.set(name, [a.caption]);
  });
  into.multirefFiles.push(file);
}

/** Checks that every multi-reference names an evaluated turn of the reference dialogs. */
function checkMultiref(refs: AvsdReferences): void {
  if (refs.multiref.size === 0) return;
  for (const name of refs.multiref.keys()) {
    const m = /^(.*)_(\d+)$/.exec(name);
    const d = m ? refs.dialogs.get(m[1]!) : undefined;
    const turn = m ? Number(m[2]) : -1;
    if (!d || !d.evaluated.includes(turn)) {
      const file = refs.multirefFiles[0] ?? '';
      throw new ImportError(
        file,
        0,
        'images.name',
        `"${name}" is no evaluated turn of the reference dialogs (${[...refs.files.keys()].map((f) => basename(f)).join(', ') || 'none in this import'})`,
      );
    }
  }
}

async function loadReferences(paths: readonly string[]): Promise<AvsdReferences> {
  const refs: AvsdReferences = { dialogs: new Map(), multiref: new Map(), files: new Map(), multirefFiles: [] };
  for (const p of paths) {
    const src = await readJsonSource(p);
    const role = avsdRole(src.value);
    if (role === 'reference') readReference(p, src, refs);
    else if (role === 'multiref') readMultiref(p, src, refs);
  }
  if (refs.multiref.size > 0 && refs.dialogs.size === 0) {
    throw new ImportError(
      refs.multirefFiles[0] ?? '',
      0,
      '',
      'a multi-reference file needs the reference dialog file (e.g. test_set4DSTC7-AVSD.json) in the same import: it holds the questions and the dialogue history',
    );
  }
  checkMultiref(refs);
  return refs;
}

/** The AVSD files among `paths` (by extension and content), read once per set of files and kept for the rest of the import. */
let lastRefs: { key: string; refs: Promise<AvsdReferences> } | null = null;

/** A JSON file whose first bytes name an AVSD key: only those are read as possible references. */
async function mayBeAvsd(path: string): Promise<boolean> {
  if (extname(path).toLowerCase() !== '.json') return false;
  const head = (await readHead(path, 8192)).toString('utf8');
  return /"(dialogs|images|annotations)"\s*:/.test(head);
}

async function referencesOf(opts: ImportOptions): Promise<AvsdReferences> {
  const all = [...new Set([...(opts.companions ?? []), ...(opts.groundTruth ? [opts.groundTruth] : [])])];
  const candidates: string[] = [];
  for (const p of all) if (await mayBeAvsd(p)) candidates.push(p);
  const stamped = await Promise.all(candidates.map(async (p) => [p, (await stat(p)).mtimeMs] as const));
  const key = JSON.stringify(stamped);
  if (lastRefs?.key !== key) lastRefs = { key, refs: loadReferences(candidates) };
  const pending = lastRefs.refs;
  try {
    return await pending;
  } catch (e) {
    if (lastRefs?.refs === pending) lastRefs = null;
    throw e;
  }
}

export const avsdSampleId = (imageId: string, turn: number): string => `${imageId}_${turn}`;

/** The items of one reference dialog's evaluated turns. */
function itemsOf(d: RefDialog, refs: AvsdReferences, split: string): ItemMeta[] {
  return d.evaluated.map((t) => {
    const own = d.turns[t]!.answer;
    const references = refs.multiref.get(avsdSampleId(d.imageId, t)) ?? (own.trim() === UNDISCLOSED ? null : [own]);
    return {
      split,
      sampleId: avsdSampleId(d.imageId, t),
      question: d.turns[t]!.question,
      options: null,
      answer: null,
      references,
      videoId: d.imageId,
      videoFile: `${d.imageId}.mp4`,
      kind: 'open',
      context: { history: d.turns.slice(0, t).map((x) => ({ question: x.question, answer: x.answer })), caption: d.caption, summary: d.summary, prompt: null },
    };
  });
}

export async function readAvsd(path: string, opts: ImportOptions = {}): Promise<ImportBatch> {
  const file = path;
  const src = await readJsonSource(path);
  const role = avsdRole(src.value);
  if (role === null)
    throw new ImportError(file, 1, 'dialogs', 'not an AVSD file: expected {dialogs: [{image_id, dialog: [{question, answer}]}]} or the multi-reference {images, annotations}');
  const split = opts.split ?? AVSD_SPLIT;
  const refs = await referencesOf({ ...opts, companions: [...new Set([...(opts.companions ?? []), path])] });
  const b = new BatchBuilder(file);
  const run = async (format: string) => ({ sourcePath: path, sha256: await sha256File(path), format, toolkit: 'avsd', modelArgs: null });
  if (role === 'multiref') return b.finish(await run('avsd-multiref'));
  if (role === 'reference') {
    for (const id of refs.files.get(path) ?? []) {
      const d = refs.dialogs.get(id)!;
      for (const it of itemsOf(d, refs, split)) b.addItem(it, d.line, { references: 'dialog.answer' });
    }
    return b.finish(await run('avsd'));
  }
  return readResult(path, src, refs, split, opts, b, await run('avsd'));
}

function readResult(path: string, src: JsonSource, refs: AvsdReferences, split: string, opts: ImportOptions, b: BatchBuilder, run: ImportBatch['run']): ImportBatch {
  const file = path;
  const rn = parseResultName(basename(path, extname(path)));
  const model = opts.model ?? rn.model;
  if (!model) throw new ImportError(file, 0, 'model', 'model unknown from the file name; pass --model');
  const config = withVariant(file, resolveConfigKey(file, { frames: rn.frames, pixels: null, what: 'the file name' }, opts.config), rn.variant);
  b.addConfig(specFor(config, { toolkit: 'avsd', sampling: { policy: null, seed: null, fps: rn.fps } }));
  if (rn.guess && !opts.model) b.warnings.push(guessWarning(file, rn.guess));
  if (refs.dialogs.size === 0) {
    throw new ImportError(
      file,
      1,
      'dialogs',
      "an AVSD result is read against the challenge's reference dialog file: add it (e.g. test_set4DSTC7-AVSD.json, and for the test set its _multiref.json) to the same import, or pass it as --ground-truth",
    );
  }
  const root = parseWith(Dialogs, src.value, file, 1);
  const scorer = new OpenScorer(file);
  const seen = new Map<string, number>();
  let refFile: string | null = null;
  root.dialogs.forEach((raw, i) => {
    const line = src.lineOf(raw);
    const f = `dialogs[${i}]`;
    const d = parseWith(Dialog, raw, file, line, f);
    const ref = refs.dialogs.get(d.image_id);
    if (!ref) throw new ImportError(file, line, `${f}.image_id`, `dialog ${d.image_id} is not in the reference (${[...refs.files.keys()].map((x) => basename(x)).join(', ')})`);
    if (seen.has(d.image_id)) throw new ImportError(file, line, `${f}.image_id`, `dialog ${d.image_id} again (first at line ${seen.get(d.image_id)})`);
    seen.set(d.image_id, line);
    refFile ??= ref.file;
    if (ref.file !== refFile)
      throw new ImportError(
        file,
        line,
        `${f}.image_id`,
        `dialog ${d.image_id} is from ${basename(ref.file)}, the file's first dialog from ${basename(refFile)}: one result file answers one reference file`,
      );
    const n = ref.turns.length;
    const E = ref.evaluated;
    const trailing = E.every((t, j) => t === n - E.length + j);
    // A result holds the whole dialog, or only the evaluated turns (the last ones of a test set).
    const at = d.dialog.length === n ? (t: number) => t : d.dialog.length === E.length && trailing ? (t: number) => t - (n - E.length) : null;
    if (at === null) {
      throw new ImportError(
        file,
        line,
        `${f}.dialog`,
        `${d.dialog.length} turn(s); the reference dialog ${d.image_id} (${basename(ref.file)}:${ref.line}) has ${n}, ${E.length === n ? 'all of them evaluated' : `of which turn(s) ${E.join(', ')} are evaluated`}: a result holds every turn, or only the evaluated ones`,
      );
    }
    for (const t of E) {
      const j = at(t);
      const turn = d.dialog[j]!;
      const tf = `${f}.dialog[${j}]`;
      // Lines are known for the parsed document's own objects, not zod's copies.
      const tline = src.lineOf((raw as { dialog: unknown[] }).dialog[j]) || line;
      if (turn.question.trim() !== ref.turns[t]!.question.trim()) {
        throw new ImportError(
          file,
          tline,
          `${tf}.question`,
          `${JSON.stringify(turn.question)} is not the reference's question at turn ${t} of ${d.image_id} (${JSON.stringify(ref.turns[t]!.question)})`,
        );
      }
      const answer = turn.answer.trim();
      if (answer === '') throw new ImportError(file, tline, `${tf}.answer`, `empty generated answer at turn ${t} of ${d.image_id}`);
      if (answer === UNDISCLOSED) throw new ImportError(file, tline, `${tf}.answer`, `still ${UNDISCLOSED} at turn ${t} of ${d.image_id}: no generated answer`);
      const sampleId = avsdSampleId(d.image_id, t);
      const references = refs.multiref.get(sampleId) ?? (ref.turns[t]!.answer.trim() === UNDISCLOSED ? null : [ref.turns[t]!.answer]);
      if (references === null) {
        throw new ImportError(
          file,
          tline,
          `${tf}.answer`,
          `turn ${t} of ${d.image_id} has no reference answer (it is ${UNDISCLOSED} in ${basename(ref.file)}): add the challenge's multi-reference file (e.g. test_set4DSTC7-AVSD_multiref.json) to the import`,
        );
      }
      if (t === E[0]) for (const it of itemsOf(ref, refs, split)) b.addItem(it, line, { references: `${tf}.answer` });
      const row = emptyResponse(model, split, sampleId, config, tline);
      row.sourceTag = 'avsd-result';
      scorer.apply(row, { pred: turn.answer, references, given: null, givenField: '', referenceField: `${tf}.answer`, line: tline });
      b.addResponse(row);
    }
  });
  const expected = refFile === null ? [] : (refs.files.get(refFile) ?? []);
  const missing = expected.filter((id) => !seen.has(id));
  if (refFile === null || missing.length > 0) {
    const which =
      refFile === null
        ? 'no dialogs'
        : `${missing.length} of the ${expected.length} dialogs of ${basename(refFile)} missing: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''}`;
    throw new ImportError(file, 1, 'dialogs', `${which} (a result answers every dialog of its reference)`);
  }
  b.warnings.push(...scorer.warnings());
  return b.finish(run);
}

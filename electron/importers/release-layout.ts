import { createReadStream, createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, sep } from 'node:path';
import { Unzip, UnzipInflate } from 'fflate';
import * as z from 'zod';
import type { ConfigSpec, ImportBatch, ItemMeta } from '../../shared/domain/types';
import { GENERATION_COLUMNS, ITEM_COLUMNS, ITEM_OPTIONAL_COLUMNS, VIDEO_COLUMNS } from '../../shared/release/item-columns';
import { parseContext } from '../../shared/domain/item-context';
import { parseWith, type ImportOptions } from './batch-builder';
import { readCsvRecords } from './csv-records';
import { readTextFile } from './text-input';
import { ImportError } from './errors';
import { Header } from './header';
import { parsePythonJson } from './py-json';
import { sha256File } from './file-hash';
import { readPerItemCsv } from './per-item-csv';
import { specFor } from './config-keys';
import { PATHWAY_COLUMNS, SPAN_COLUMNS } from '../../shared/release/annotation-columns';

/**
 * The release layout (docs/release-format.md): a folder or a `.zip` with labels/per_item.csv,
 * optionally labels/items.csv (the opt-in benchmark text: question, options, answer, task type,
 * duration, domain, video — items without responses included), provenance/configs.json
 * (→ ConfigSpecs) and annotations/ (codebook.json,
 * pathways.csv, evidence_spans.csv → batch.annotations, validated here, applied by the store).
 * A zip is streamed entry by entry into a private temporary folder (never held in memory),
 * then read like a folder; error messages name `archive.zip!inner/path`.
 */

const nonEmpty = z.string().min(1, 'empty');
const seconds = z.string().regex(/^\d+(\.\d+)?$/, 'expected seconds ≥ 0');

const PathwayRow = z
  .object({
    sample_id: nonEmpty,
    model: nonEmpty,
    split: nonEmpty,
    annotator: nonEmpty,
    status: z.enum(['todo', 'in_progress', 'done', 'skipped', 'needs_review']),
    confidence: z.union([z.literal(''), z.string().regex(/^[1-5]$/, 'expected 1–5 or empty')]),
    transition: z.union([z.literal(''), z.string().regex(/^[^>]+>[^>]+$/, 'expected <config>><config>')]),
  })
  .passthrough();

const SpanRow = z
  .object({ sample_id: nonEmpty, model: nonEmpty, split: nonEmpty, annotator: nonEmpty, start_s: seconds, end_s: seconds })
  .passthrough()
  .refine((r) => Number(r.end_s) >= Number(r.start_s), { message: 'end_s before start_s', path: ['end_s'] });

const CodebookSchema = z
  .object({
    id: z.string(),
    version: z.union([z.string(), z.number()]),
    pathways: z.array(z.object({ id: z.string().min(1), label: z.string() }).passthrough()),
  })
  .passthrough();

const ConfigEntry = z.object({
  frames: z.number().int().min(0).nullish(),
  pixel_count: z.number().int().min(0).nullish(),
  width: z.number().int().positive().nullish(),
  height: z.number().int().positive().nullish(),
  sampling: z.object({ policy: z.string().nullish(), seed: z.number().int().nullish(), fps: z.number().positive().nullish() }).nullish(),
  pipeline: z.enum(['raw', 'cache']).nullish(),
  toolkit: z.string().nullish(),
  model_args: z.string().nullish(),
  notes: z.string().nullish(),
});
const ConfigsSchema = z.record(z.string(), ConfigEntry);

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

async function readAnnotationCsv<T extends readonly string[]>(
  path: string,
  display: string,
  columns: T,
  schema: z.ZodType<unknown>,
  onRow?: (row: Record<string, string>, line: number) => void,
  /** Columns a file may hold but need not (a row without them reads them as ''). */
  optional: readonly string[] = [],
): Promise<Record<string, string>[]> {
  const rows: Record<string, string>[] = [];
  let header: Header | null = null;
  await readCsvRecords(path, display, (r, line) => {
    if (!header) {
      for (const c of r) if (!columns.includes(c) && !optional.includes(c)) throw new ImportError(display, 1, c, `unknown header "${c}"`);
      for (const c of columns) if (!r.includes(c)) throw new ImportError(display, 1, c, `missing required header "${c}"`);
      header = new Header(r, display);
      return;
    }
    const h: Header = header;
    if (r.length !== h.width) throw new ImportError(display, line, '', `malformed row: ${r.length} fields, header has ${h.width}`);
    const row = h.record(r, line) as Record<string, string>;
    for (const c of optional) row[c] ??= '';
    parseWith(schema, row, display, line);
    if (onRow) onRow(row, line);
    else rows.push(row);
  });
  return rows;
}

const JsonList = z
  .string()
  .transform((t, ctx) => {
    if (t === '') return null;
    try {
      return JSON.parse(t) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'expected a JSON array of strings' });
      return z.NEVER;
    }
  })
  .pipe(z.array(z.string(), { message: 'expected a JSON array of strings' }).nullable());
const orNull = z.string().transform((t) => (t === '' ? null : t));
const ItemRow = z.object({
  split: nonEmpty,
  sample_id: nonEmpty,
  question: orNull,
  options: JsonList,
  answer: orNull,
  references: JsonList,
  task_type: orNull,
  duration_s: z.union([
    z.literal('').transform(() => null),
    z
      .string()
      .regex(/^\d+(\.\d+)?([eE][+-]?\d+)?$/, 'expected seconds ≥ 0')
      .transform(Number),
  ]),
  duration_bucket: orNull,
  domain: orNull,
  sub_category: orNull,
  video_id: orNull,
  video_file: orNull,
  // Only items.csv may have it (an optional column): absent reads as none.
  context: z
    .string()
    .optional()
    .transform((t, ctx) => {
      if (t === undefined || t === '') return null;
      try {
        return parseContext(t);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: (e as Error).message });
        return z.NEVER;
      }
    }),
});

/**
 * labels/items.csv → item metadata merged into the batch's items: a field the per_item.csv
 * rows already gave (the answer letter) must agree; items with no response row are kept.
 */
async function readItemsCsv(path: string, display: string, batch: ImportBatch, columns: readonly string[] = ITEM_COLUMNS, earlier = 'labels/per_item.csv'): Promise<void> {
  const byKey = new Map<string, ItemMeta>();
  for (const it of batch.items) byKey.set(`${it.split}\u0000${it.sampleId}`, it);
  // provenance/videos.csv has a subset of the columns: the others read as empty.
  const absent = Object.fromEntries(ITEM_COLUMNS.filter((c) => !columns.includes(c)).map((c) => [c, '']));
  await readAnnotationCsv(
    path,
    display,
    columns,
    z.unknown(),
    (raw, line) => {
      const r = parseWith(ItemRow, { ...absent, ...raw }, display, line);
      const kind = r.references ? 'open' : r.options ? 'mcqa' : null;
      const meta: ItemMeta = {
        split: r.split,
        sampleId: r.sample_id,
        question: r.question,
        options: r.options,
        answer: r.answer,
        references: r.references,
        taskType: r.task_type,
        durationS: r.duration_s,
        durationBucket: r.duration_bucket,
        domain: r.domain,
        subCategory: r.sub_category,
        videoId: r.video_id,
        videoFile: r.video_file,
        kind,
        context: r.context,
      };
      const key = `${r.split}\u0000${r.sample_id}`;
      const prev = byKey.get(key);
      if (!prev) {
        byKey.set(key, meta);
        batch.items.push(meta);
        return;
      }
      for (const [k, v] of Object.entries(meta) as [keyof ItemMeta, unknown][]) {
        if (v == null) continue;
        const old = prev[k];
        if (old == null) (prev as unknown as Record<string, unknown>)[k] = v;
        else if (JSON.stringify(old) !== JSON.stringify(v)) {
          throw new ImportError(
            display,
            line,
            k === 'sampleId' ? 'sample_id' : k,
            `contradicts ${earlier} for (${r.split}, ${r.sample_id}): ${JSON.stringify(v)} here, ${JSON.stringify(old)} there`,
          );
        }
      }
    },
    columns === ITEM_COLUMNS ? ITEM_OPTIONAL_COLUMNS : [],
  );
}

const GenerationRow = z.object({
  sample_id: nonEmpty,
  model: nonEmpty,
  split: nonEmpty,
  config: nonEmpty,
  text: z.string().min(1, 'empty generated text (a cell without text has no row)'),
});

/**
 * labels/generations.csv → the generated text of each open-ended cell, into the pred of the
 * per_item.csv cell it belongs to (docs/release-format.md). A row naming no per_item.csv cell,
 * a cell that is not open-ended (it has a correctness, or no score), or a cell named twice is
 * refused naming the line.
 */
async function readGenerationsCsv(path: string, display: string, batch: ImportBatch): Promise<void> {
  const cols = batch.columns ?? [];
  const columns = new Map<string, { at: number; ids: Map<string, number>; text: (string | null)[] | null }>();
  cols.forEach((c, at) => columns.set(`${c.model}\u0000${c.split}\u0000${c.config}`, { at, ids: new Map(c.sampleIds.map((id, k) => [id, k])), text: null }));
  const seen = new Set<string>();
  await readAnnotationCsv(path, display, GENERATION_COLUMNS, z.unknown(), (raw, line) => {
    const r = parseWith(GenerationRow, raw, display, line);
    const key = `${r.model}\u0000${r.split}\u0000${r.config}`;
    const col = columns.get(key);
    const k = col?.ids.get(r.sample_id);
    const what = `(${r.sample_id}, ${r.model}, ${r.split}, ${r.config})`;
    if (!col || k === undefined) throw new ImportError(display, line, 'sample_id', `no labels/per_item.csv row for ${what}`);
    if (seen.has(`${key}\u0000${r.sample_id}`)) throw new ImportError(display, line, 'sample_id', `${what} is listed twice`);
    seen.add(`${key}\u0000${r.sample_id}`);
    const c = cols[col.at]!;
    if (c.correct[k]! >= 0 || Number.isNaN(c.score[k]!))
      throw new ImportError(display, line, 'config', `${what} is not an open-ended cell in labels/per_item.csv (it needs a score and no correct)`);
    col.text ??= c.pred.slice();
    if (col.text[k] != null && col.text[k] !== r.text) throw new ImportError(display, line, 'text', `contradicts labels/per_item.csv's predicted_option for ${what}`);
    col.text[k] = r.text;
  });
  // The columns that got texts, as new plain columns: a reader's column may compute its string
  // arrays from shared tables (per-item-csv.ts), which stay as they are.
  for (const col of columns.values()) {
    if (col.text === null) continue;
    const c = cols[col.at]!;
    const table: string[] = [];
    const of = new Map<string, number>();
    const index = Int32Array.from(col.text, (t) => {
      if (t === null) return -1;
      let i = of.get(t);
      if (i === undefined) of.set(t, (i = table.push(t) - 1));
      return i;
    });
    cols[col.at] = {
      model: c.model,
      split: c.split,
      config: c.config,
      length: c.length,
      sampleIds: c.sampleIds,
      pred: col.text,
      correct: c.correct,
      score: c.score,
      groundTruth: c.groundTruth,
      confidence: c.confidence,
      margin: c.margin,
      latencyMs: c.latencyMs,
      frameIndices: c.frameIndices,
      sourceTag: c.sourceTag,
      protocolNote: c.protocolNote,
      line: c.line,
      tables: { ...c.tables, pred: { table, index } },
    };
  }
}

async function readReleaseFolder(dir: string, opts: ImportOptions, label: string): Promise<ImportBatch> {
  const name = (rel: string): string => `${label}${label.endsWith('.zip') ? '!' : sep}${rel}`;
  const perItem = join(dir, 'labels', 'per_item.csv');
  if (!(await exists(perItem))) throw new ImportError(label, 0, 'labels/per_item.csv', 'missing: not a release folder');
  const batch = await readPerItemCsv(perItem, opts, name('labels/per_item.csv'));
  batch.run.format = 'release';

  const itemsPath = join(dir, 'labels', 'items.csv');
  if (await exists(itemsPath)) await readItemsCsv(itemsPath, name('labels/items.csv'), batch);
  // Every export's video names and durations (an export with the text repeats them in items.csv; both must agree).
  const videosPath = join(dir, 'provenance', 'videos.csv');
  if (await exists(videosPath)) await readItemsCsv(videosPath, name('provenance/videos.csv'), batch, VIDEO_COLUMNS, 'labels/items.csv');
  const generationsPath = join(dir, 'labels', 'generations.csv');
  if (await exists(generationsPath)) await readGenerationsCsv(generationsPath, name('labels/generations.csv'), batch);

  const configsPath = join(dir, 'provenance', 'configs.json');
  if (await exists(configsPath)) {
    const display = name('provenance/configs.json');
    let json: unknown;
    try {
      json = parsePythonJson(await readTextFile(configsPath, display));
    } catch (e) {
      if (e instanceof ImportError) throw e;
      throw new ImportError(display, 0, '', `malformed JSON: ${(e as Error).message}`);
    }
    const entries = parseWith(ConfigsSchema, json, display, 0);
    const byKey = new Map(batch.configs.map((c) => [c.key, c]));
    for (const [key, e] of Object.entries(entries)) {
      const known = byKey.get(key);
      if (known && e.frames != null && e.frames !== known.frames) {
        throw new ImportError(display, 0, `${key}.frames`, `configs.json says ${e.frames} frames, per_item.csv says ${known.frames}`);
      }
      let spec: ConfigSpec;
      try {
        spec = specFor(key, {
          frames: e.frames ?? known?.frames,
          pixelCount: e.pixel_count !== undefined ? e.pixel_count : known?.pixelCount,
          width: e.width ?? null,
          height: e.height ?? null,
          sampling: {
            policy: (e.sampling?.policy ?? null) as ConfigSpec['sampling']['policy'],
            seed: e.sampling?.seed ?? null,
            fps: e.sampling?.fps ?? null,
          },
          pipeline: e.pipeline ?? null,
          toolkit: e.toolkit ?? null,
          modelArgs: e.model_args ?? null,
          notes: e.notes ?? null,
        });
      } catch (err) {
        throw new ImportError(display, 0, key, (err as Error).message);
      }
      byKey.set(key, spec);
    }
    batch.configs = [...byKey.values()];
  }

  const ann = join(dir, 'annotations');
  if (await exists(ann)) {
    const annotations: NonNullable<ImportBatch['annotations']> = { pathways: [], evidenceSpans: [] };
    const cb = join(ann, 'codebook.json');
    if (await exists(cb)) {
      const display = name('annotations/codebook.json');
      let json: unknown;
      try {
        json = JSON.parse(await readTextFile(cb, display));
      } catch (e) {
        if (e instanceof ImportError) throw e;
        throw new ImportError(display, 0, '', `malformed JSON: ${(e as Error).message}`);
      }
      annotations.codebook = parseWith(CodebookSchema, json, display, 0);
    }
    const pw = join(ann, 'pathways.csv');
    if (await exists(pw)) annotations.pathways = await readAnnotationCsv(pw, name('annotations/pathways.csv'), PATHWAY_COLUMNS, PathwayRow);
    const sp = join(ann, 'evidence_spans.csv');
    if (await exists(sp)) annotations.evidenceSpans = await readAnnotationCsv(sp, name('annotations/evidence_spans.csv'), SPAN_COLUMNS, SpanRow);
    batch.annotations = annotations;
  }
  return batch;
}

/**
 * Limits on what a zip may inflate to (docs/security.md, "Import limits"): a small archive
 * must not fill the disk. Bytes are counted as they inflate and extraction stops as soon as
 * one limit is passed.
 */
export interface ZipLimits {
  /** Largest uncompressed entry. */
  maxEntryBytes: number;
  /** Largest uncompressed/compressed ratio of an entry … */
  maxRatio: number;
  /** … checked once the entry has inflated past this many bytes (tiny files compress well). */
  ratioFloorBytes: number;
  /** Largest total of all entries, uncompressed. */
  maxTotalBytes: number;
}

export const ZIP_LIMITS: ZipLimits = {
  maxEntryBytes: 4 * 2 ** 30,
  maxRatio: 200,
  ratioFloorBytes: 2 ** 20,
  maxTotalBytes: 8 * 2 ** 30,
};

const mib = (n: number): string => `${Math.round(n / 2 ** 20)} MiB`;
const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * Streams a zip's entries into `dest` (rejecting paths that escape it, and entries past
 * `limits`). On any failure every write stream is closed before this rejects with an
 * ImportError naming the zip and the entry, so the caller can remove `dest` whole.
 */
export async function unzipTo(zipPath: string, dest: string, limits: ZipLimits = ZIP_LIMITS): Promise<void> {
  let failure: ImportError | null = null;
  const fail = (entry: string, reason: string): void => {
    failure ??= new ImportError(zipPath, 0, entry, reason);
  };
  const open = new Set<WriteStream>();
  const closed: Promise<void>[] = [];
  let pushed = 0; // compressed bytes handed to the unzipper so far
  let total = 0; // bytes inflated so far, all entries
  let current = '';
  const uz = new Unzip((file) => {
    if (failure) return;
    current = file.name;
    const rel = normalize(file.name);
    // `..` as a whole path part: an entry named `..x/…` stays inside.
    if (rel === '..' || rel.startsWith(`..${sep}`) || rel.startsWith(sep) || /^[A-Za-z]:/.test(rel)) {
      fail(file.name, 'zip entry points outside the archive');
      return;
    }
    if (file.name.endsWith('/')) return;
    const target = join(dest, rel);
    let out: WriteStream;
    try {
      // Synchronous, so that the entry starts inside this callback and its bytes are counted
      // as the unzipper inflates them (no write outlives a failure).
      mkdirSync(dirname(target), { recursive: true });
      out = createWriteStream(target);
    } catch (e) {
      fail(file.name, `cannot extract: ${messageOf(e)}`);
      return;
    }
    open.add(out);
    closed.push(
      new Promise<void>((resolve) =>
        out.on('close', () => {
          open.delete(out);
          resolve();
        }),
      ),
    );
    out.on('error', (e) => fail(file.name, `cannot extract: ${e.message}`));
    // The entry's compressed size; a streamed zip (data descriptor) gives none up front, so the
    // compressed bytes pushed since its header bound it from above (the ratio from below).
    const startPushed = pushed;
    let inflated = 0;
    file.ondata = (err, chunk, final) => {
      if (failure) return;
      if (err) {
        fail(file.name, `corrupt zip entry: ${err.message}`);
      } else {
        inflated += chunk.length;
        total += chunk.length;
        const packed = Math.max(1, file.size ?? pushed - startPushed);
        if (inflated > limits.maxEntryBytes) {
          fail(file.name, `entry inflates past ${mib(limits.maxEntryBytes)} (the limit for one entry)`);
        } else if (inflated > limits.ratioFloorBytes && inflated > limits.maxRatio * packed) {
          fail(file.name, `entry inflates more than ${limits.maxRatio}× its compressed size (a zip bomb?)`);
        } else if (total > limits.maxTotalBytes) {
          fail(file.name, `the zip inflates past ${mib(limits.maxTotalBytes)} in total`);
        }
      }
      if (failure) {
        file.terminate();
        out.destroy();
        return;
      }
      out.write(chunk);
      if (final) out.end();
    };
    file.start();
  });
  uz.register(UnzipInflate);

  // Waits for the write streams to take what they were given (bounded memory on a big zip).
  const drained = async (): Promise<void> => {
    for (const out of open) {
      if (!out.writableNeedDrain) continue;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          out.off('drain', done);
          out.off('close', done);
          resolve();
        };
        out.on('drain', done);
        out.on('close', done);
      });
    }
  };
  try {
    for await (const chunk of createReadStream(zipPath)) {
      pushed += (chunk as Uint8Array).length;
      try {
        uz.push(chunk as Uint8Array);
      } catch (e) {
        fail(current, `damaged zip: ${messageOf(e)}`);
      }
      if (failure) break;
      await drained();
      if (failure) break;
    }
    if (!failure) {
      try {
        uz.push(new Uint8Array(0), true);
      } catch (e) {
        fail(current, `damaged zip: ${messageOf(e)}`);
      }
    }
    for (const out of open) if (!out.writableEnded) fail(current, 'damaged zip: it ends inside this entry');
  } catch (e) {
    fail(current, `cannot read the zip: ${messageOf(e)}`);
  }
  if (failure) for (const out of open) out.destroy();
  await Promise.all(closed);
  if (failure) throw failure;
}

export async function readRelease(path: string, opts: ImportOptions = {}, zipLimits: ZipLimits = ZIP_LIMITS): Promise<ImportBatch> {
  if ((await stat(path)).isDirectory()) return readReleaseFolder(path, opts, path);
  let tmp: string;
  try {
    tmp = await mkdtemp(join(tmpdir(), 'flipbook-release-'));
  } catch (e) {
    throw new ImportError(path, 0, '', `cannot make a temporary folder to extract into: ${messageOf(e)}`);
  }
  try {
    await unzipTo(path, tmp, zipLimits);
    // A zip of the folder itself holds one top-level directory: descend into it.
    let root = tmp;
    if (!(await exists(join(tmp, 'labels')))) {
      const entries = await readdir(tmp);
      if (entries.length === 1 && entries[0] && (await exists(join(tmp, entries[0], 'labels')))) root = join(tmp, entries[0]);
    }
    const batch = await readReleaseFolder(root, opts, path);
    batch.run.sourcePath = path;
    batch.run.sha256 = await sha256File(path);
    return batch;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

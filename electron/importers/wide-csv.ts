import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import type { ImportBatch } from '../../shared/domain/types';
import { BatchBuilder, emptyResponse, type ImportOptions } from './batch-builder';
import { parseKey, specFor } from './config-keys';
import { readCsvRecords } from './csv-records';
import { ImportError } from './errors';
import { Header } from './header';
import type { GroundTruth } from './ground-truth';
import { isOptionLetter } from './option-letter';

/**
 * The release's `<model>_<split>_predictions_wide.csv`: `sample_id` + one predicted
 * letter per config. Model and split come from the file name — the model is everything
 * before the first `_` (the release's model names have none; splits such as `V1_short`
 * do) — or from --model/--split. An empty cell is a response without a letter (the
 * release counts it wrong), not a missing cell. Correctness needs a ground-truth source;
 * without one rows carry correct = null. When the release's `release_manifest.json` sits
 * beside the file, each cell's source_tag/protocol_note is taken from it.
 */
const ManifestSchema = z.object({
  cells: z.array(
    z.object({
      model: z.string(),
      split: z.string(),
      config: z.string(),
      source_tag: z.string().nullish(),
      protocol_note: z.string().nullish(),
    }),
  ),
});

export function modelSplitFromWideName(name: string): { model: string; split: string } | null {
  const m = /^([^_]+)_(.+)_predictions_wide\.csv$/i.exec(name);
  return m?.[1] && m[2] ? { model: m[1], split: m[2] } : null;
}

async function manifestTags(dir: string): Promise<Map<string, { tag: string | null; note: string | null }>> {
  const out = new Map<string, { tag: string | null; note: string | null }>();
  let text: string;
  try {
    text = await readFile(join(dir, 'release_manifest.json'), 'utf8');
  } catch {
    return out;
  }
  // The manifest only adds tags; an unreadable one is ignored like a missing one (BOM tolerated).
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return out;
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) return out;
  for (const c of parsed.data.cells) {
    out.set(`${c.model}\u0000${c.split}\u0000${c.config}`, { tag: c.source_tag || null, note: c.protocol_note || null });
  }
  return out;
}

export async function readWideCsv(
  path: string,
  opts: ImportOptions,
  groundTruth: GroundTruth | null,
  display = path,
): Promise<ImportBatch> {
  const file = display;
  const named = modelSplitFromWideName(basename(path));
  const model = opts.model ?? named?.model;
  const split = opts.split ?? named?.split;
  if (!model || !split) {
    throw new ImportError(file, 0, model ? 'split' : 'model', 'cannot tell model/split from the file name <model>_<split>_predictions_wide.csv; pass --model and --split');
  }
  const tags = await manifestTags(dirname(path));
  const b = new BatchBuilder(file);
  let configs: string[] | null = null;
  let header: Header | null = null;
  const rowsById = new Map<string, { line: number; cells: string[] }>();
  let noGt = 0;

  const sha256 = await readCsvRecords(path, file, (r, line) => {
    if (header === null) {
      if (r[0] !== 'sample_id') throw new ImportError(file, 1, r[0] ?? '', `unknown header "${r[0] ?? ''}": the first column must be sample_id`);
      header = new Header(r, file);
      configs = header.names.slice(1).map((c) => {
        if (!parseKey(c)) throw new ImportError(file, 1, c, `unknown header "${c}": not a config key (textonly, <frames>f or <frames>f_<pixels>)`);
        return c;
      });
      return;
    }
    const h: Header = header;
    const cfgs = configs as string[];
    if (r.length !== h.width) throw new ImportError(file, line, '', `malformed row: ${r.length} fields, header has ${h.width}`);
    // A config column given twice is read once, if both copies agree on this row.
    h.check(r, line);
    const sampleId = r[0] as string;
    if (!sampleId) throw new ImportError(file, line, 'sample_id', 'empty');
    const cells = cfgs.map((c) => r[h.index(c)] as string);
    const prev = rowsById.get(sampleId);
    if (prev) {
      const j = cells.findIndex((c, k) => c !== prev.cells[k]);
      if (j >= 0) {
        throw new ImportError(file, line, cfgs[j] as string, `duplicate sample_id ${sampleId} with a different value: ${JSON.stringify(cells[j])} here, ${JSON.stringify(prev.cells[j])} at line ${prev.line}`);
      }
      return;
    }
    rowsById.set(sampleId, { line, cells });
    const gtItem = groundTruth ? groundTruth.item(split, sampleId) : null;
    const gt = gtItem?.answer ?? null;
    if (groundTruth && gt === null) noGt += 1;
    cells.forEach((cell, k) => {
      const config = cfgs[k] as string;
      if (cell !== '' && !isOptionLetter(cell)) {
        throw new ImportError(file, line, config, `expected an option letter A–H or empty, got ${JSON.stringify(cell)}`);
      }
      const row = emptyResponse(model, split, sampleId, config, line);
      row.pred = cell === '' ? null : cell;
      row.groundTruth = gt;
      row.correct = gt === null ? null : row.pred === gt;
      const t = tags.get(`${model}\u0000${split}\u0000${config}`);
      if (t) {
        row.sourceTag = t.tag;
        row.protocolNote = t.note;
      }
      b.addResponse(row);
    });
    // The source's question, options, task type, … come along with its answer.
    if (gtItem) b.addItem(gtItem, line);
  });
  if (configs === null) throw new ImportError(file, 1, '', 'empty file: no header row');
  for (const c of configs as string[]) b.addConfig(specFor(c));
  if (groundTruth && noGt > 0) {
    b.warnings.push(`${basename(file)}: ${noGt} of ${rowsById.size} sample(s) of split ${split} have no answer (${groundTruth.describeMiss(split)}); correct left empty`);
  }
  return b.finish({ sourcePath: path, sha256, format: 'wide-csv', toolkit: 'flipbook-release', modelArgs: null });
}

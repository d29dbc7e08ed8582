import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import * as z from 'zod';
import type { ImportBatch } from '../../shared/domain/types';
import { BatchBuilder, emptyResponse, parseWith, type ImportOptions } from './batch-builder';
import { parseKey, specFor } from './config-keys';
import { readCsvRecords } from './csv-records';
import { ImportError } from './errors';
import { Header } from './header';
import { parsePythonJson } from './py-json';
import type { GroundTruth } from './ground-truth';
import { isOptionLetter } from './option-letter';

/**
 * The release's `<model>_<split>_predictions_wide.csv`: `sample_id` + one predicted
 * letter per config. Model and split come from the file name — the model is everything
 * before the first `_` (the release's model names have none; splits such as `V1_short`
 * do) — or from --model/--split. An empty cell is a response without a letter (the
 * release counts it wrong), not a missing cell. Correctness needs a ground-truth source;
 * without one rows carry correct = null. When the release's `release_manifest.json` sits
 * beside the file, each cell's source_tag/protocol_note is taken from it: from `cells`, or for
 * a grid listed under `wide_sources` (one block from an older source, docs/release-format.md)
 * the entry whose source_tag names the model and split (`<kind>:<model>:<split>:<rest>`).
 */
const CellCounts = z.object({ total: z.number().int().min(0), correct: z.number().int().min(0) });
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
  wide_sources: z
    .union([
      z.array(z.object({ source_tag: z.string().min(1), cells: z.record(z.string(), CellCounts) })),
      // Flipbook exports before the corrected release format wrote {name: path}: nothing to take.
      z.record(z.string(), z.string()),
    ])
    .optional(),
});

export function modelSplitFromWideName(name: string): { model: string; split: string } | null {
  const m = /^([^_]+)_(.+)_predictions_wide\.csv$/i.exec(name);
  // Both groups match at least one character.
  return m ? { model: m[1]!, split: m[2]! } : null;
}

interface ManifestTags {
  cells: Map<string, { tag: string | null; note: string | null }>;
  /** model \0 split → the wide source's tag and the configs it lists. */
  wide: Map<string, { tag: string; configs: string[] }>;
}

async function manifestTags(dir: string): Promise<ManifestTags> {
  const out: ManifestTags = { cells: new Map(), wide: new Map() };
  const path = join(dir, 'release_manifest.json');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return out;
  }
  let json: unknown;
  try {
    json = parsePythonJson(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new ImportError(path, 0, '', `malformed JSON: ${(e as Error).message}`);
  }
  const m = parseWith(ManifestSchema, json, path, 0);
  for (const c of m.cells) {
    out.cells.set(`${c.model}\u0000${c.split}\u0000${c.config}`, { tag: c.source_tag || null, note: c.protocol_note || null });
  }
  if (Array.isArray(m.wide_sources)) {
    for (const w of m.wide_sources) {
      const parts = w.source_tag.split(':');
      if (parts.length < 3) continue;
      out.wide.set(`${parts[1]}\u0000${parts[2]}`, { tag: w.source_tag, configs: Object.keys(w.cells) });
    }
  }
  return out;
}

export async function readWideCsv(path: string, opts: ImportOptions, groundTruth: GroundTruth | null, display = path): Promise<ImportBatch> {
  const file = display;
  const named = modelSplitFromWideName(basename(path));
  const model = opts.model ?? named?.model;
  const split = opts.split ?? named?.split;
  if (!model || !split) {
    throw new ImportError(file, 0, model ? 'split' : 'model', 'cannot tell model/split from the file name <model>_<split>_predictions_wide.csv; pass --model and --split');
  }
  const tags = await manifestTags(dirname(path));
  const wide = tags.wide.get(`${model}\u0000${split}`) ?? null;
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
        throw new ImportError(
          file,
          line,
          cfgs[j] as string,
          `duplicate sample_id ${sampleId} with a different value: ${JSON.stringify(cells[j])} here, ${JSON.stringify(prev.cells[j])} at line ${prev.line}`,
        );
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
      const t = tags.cells.get(`${model}\u0000${split}\u0000${config}`);
      if (t) {
        row.sourceTag = t.tag;
        row.protocolNote = t.note;
      } else if (wide) row.sourceTag = wide.tag;
      b.addResponse(row);
    });
    // The source's question, options, task type, … come along with its answer.
    if (gtItem) b.addItem(gtItem, line);
  });
  if (configs === null) throw new ImportError(file, 1, '', 'empty file: no header row');
  for (const c of configs as string[]) b.addConfig(specFor(c));
  if (wide) {
    const mine = (configs as string[]).slice().sort().join(',');
    const theirs = wide.configs.slice().sort().join(',');
    if (mine !== theirs) b.warnings.push(`${basename(file)}: release_manifest.json's wide source ${wide.tag} lists configs ${theirs}, the file has ${mine}`);
  }
  if (groundTruth && noGt > 0) {
    b.warnings.push(`${basename(file)}: ${noGt} of ${rowsById.size} sample(s) of split ${split} have no answer (${groundTruth.describeMiss(split)}); correct left empty`);
  }
  return b.finish({ sourcePath: path, sha256, format: 'wide-csv', toolkit: 'flipbook-release', modelArgs: null });
}

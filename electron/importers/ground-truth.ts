import { basename } from 'node:path';
import type { ImportBatch, ItemMeta } from '../../shared/domain/types';
import { expandSplit } from './batch-builder';
import { ImportError } from './errors';

/**
 * Answers (and question metadata) from another import — an lmms-eval log, a Video-MME
 * parquet, MLVU JSON, a per_item.csv — for files that have none (the release's wide CSVs).
 *
 * A source's answers reach a target split only through an explicit rule (docs/formats.md
 * "Ground truth"), never through a bare sample id: Video-MME v1 and v2 ids collide, so an
 * id-only lookup hands v1 answers to v2 rows and silently produces wrong accuracies.
 * The rules, per source split S:
 * - S answers the target split of the same name;
 * - a user mapping `S=<template>` (template may hold `{duration}`, the item's Video-MME
 *   duration bucket) answers the expanded split, and replaces the built-in rule of S;
 * - built-in: `videomme` — the split every Video-MME v1 reader defaults to (lmms-eval's task
 *   `videomme`, the v1 parquet, the official results JSON) — also answers `V1_{duration}`,
 *   the release's v1 split names. Nothing answers `V2_*` unless a source split is named so
 *   or mapped so.
 * A target key reached from two source rows with different answers is rejected.
 */
export type SplitMap = ReadonlyMap<string, string>;

const BUILT_IN: SplitMap = new Map([['videomme', 'V1_{duration}']]);

/** `videomme=V1_{duration},videomme_v2=V2_medium` → Map; throws Error with the reason. */
export function parseSplitMap(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const eq = part.indexOf('=');
    const from = eq > 0 ? part.slice(0, eq).trim() : '';
    const to = eq > 0 ? part.slice(eq + 1).trim() : '';
    if (!from || !to) throw new Error(`expected <source split>=<target split or template>, got "${part}"`);
    if (out.has(from) && out.get(from) !== to) throw new Error(`source split "${from}" is mapped twice`);
    out.set(from, to);
  }
  if (out.size === 0) throw new Error('needs at least one <source split>=<target split>');
  return out;
}

type Meta = Omit<ItemMeta, 'split' | 'sampleId' | 'line'>;

export class GroundTruth {
  /** target split → sample id → answer and metadata (target split filled in). */
  private readonly byTarget = new Map<string, Map<string, { answer: string; meta: Meta; from: string }>>();
  readonly sourceSplits = new Set<string>();

  constructor(
    batches: ImportBatch[],
    readonly file: string,
    mapping: SplitMap | null = null,
  ) {
    const metaOf = new Map<string, Meta>();
    for (const b of batches) {
      for (const it of b.items) {
        const { split, sampleId, line: _l, ...meta } = it;
        metaOf.set(`${split}\u0000${sampleId}`, meta);
      }
    }
    const put = (split: string, id: string, answer: string | null | undefined, line: number): void => {
      this.sourceSplits.add(split);
      if (!answer) return;
      const meta: Meta = metaOf.get(`${split}\u0000${id}`) ?? { answer, kind: 'mcqa' };
      const rule = mapping?.get(split) ?? BUILT_IN.get(split);
      const targets = new Set([split]);
      if (rule && (!rule.includes('{duration}') || meta.durationBucket)) targets.add(expandSplit(rule, meta.durationBucket));
      for (const t of targets) {
        let m = this.byTarget.get(t);
        if (!m) this.byTarget.set(t, (m = new Map()));
        const prev = m.get(id);
        if (prev && prev.answer !== answer) {
          throw new ImportError(
            file,
            line,
            'answer',
            `sample ${id} gets two answers in split ${t}: ${JSON.stringify(answer)} from source split ${split}, ${JSON.stringify(prev.answer)} from ${prev.from}`,
          );
        }
        if (!prev) m.set(id, { answer, meta: { ...meta, answer }, from: split });
      }
    };
    for (const b of batches) {
      for (const it of b.items) put(it.split, it.sampleId, it.answer, it.line ?? 0);
      // A column batch's `responses` are the same cells, built on demand: read one of the two.
      if (b.columns) {
        for (const c of b.columns) {
          for (let k = 0; k < c.length; k += 1) put(c.split, c.sampleIds[k] as string, c.groundTruth[k], c.line[k] ?? 0);
        }
      } else {
        for (const r of b.responses) put(r.split, r.sampleId, r.groundTruth, r.line);
      }
    }
    if (mapping) {
      for (const from of mapping.keys()) {
        if (!this.sourceSplits.has(from)) {
          throw new ImportError(file, 0, 'ground-truth-split', `the ground-truth source has no split "${from}" (it has: ${[...this.sourceSplits].join(', ')})`);
        }
      }
    }
  }

  get size(): number {
    let n = 0;
    for (const m of this.byTarget.values()) n += m.size;
    return n;
  }

  /** The target splits this source answers. */
  get targetSplits(): string[] {
    return [...this.byTarget.keys()].sort();
  }

  answer(split: string, sampleId: string): string | null {
    return this.byTarget.get(split)?.get(sampleId)?.answer ?? null;
  }

  /** The item's metadata from the source (question, options, task type, …), retargeted to `split`. */
  item(split: string, sampleId: string): ItemMeta | null {
    const e = this.byTarget.get(split)?.get(sampleId);
    return e ? { ...e.meta, split, sampleId } : null;
  }

  /** Why a split gets no answers, for the summary. */
  describeMiss(split: string): string {
    return this.byTarget.has(split)
      ? `not in split ${split} of ${basename(this.file)}`
      : `${basename(this.file)} answers splits ${this.targetSplits.join(', ') || '(none)'}, not ${split}; map one with --ground-truth-split`;
  }
}

/** Per split of the wide batches read with a ground truth: items and how many got an answer. */
export function groundTruthCoverage(batches: ImportBatch[]): Record<string, { items: number; answered: number }> {
  const seen = new Map<string, Map<string, boolean>>();
  for (const b of batches) {
    if (b.run.format !== 'wide-csv') continue;
    for (const r of b.responses) {
      let m = seen.get(r.split);
      if (!m) seen.set(r.split, (m = new Map()));
      if (!m.get(r.sampleId)) m.set(r.sampleId, r.groundTruth !== null);
    }
  }
  const out: Record<string, { items: number; answered: number }> = {};
  for (const [split, m] of [...seen].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    let answered = 0;
    for (const v of m.values()) if (v) answered += 1;
    out[split] = { items: m.size, answered };
  }
  return out;
}

/** Shared builders for the store tests: real SQLite files in a fresh temp dir (tempDir). */
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { ConfigSpec, ImportBatch, ItemMeta, ResponseRow } from '../../../shared/domain/types';

// The store tests' temp folders come from the suite-wide helper (removed after each file).
export { tempDir } from '../../temp-dir';

export function config(key: string, frames: number, pixelCount: number | null = frames === 0 ? 0 : 150528, extra: Partial<ConfigSpec> = {}): ConfigSpec {
  return {
    key,
    frames,
    pixelCount,
    width: null,
    height: null,
    sampling: { policy: null, seed: null, fps: null },
    pipeline: null,
    toolkit: null,
    modelArgs: null,
    notes: null,
    ...extra,
  };
}

export function response(p: Partial<ResponseRow> & Pick<ResponseRow, 'sampleId' | 'config' | 'line'>): ResponseRow {
  return {
    model: 'qwen',
    split: 'V1_short',
    pred: null,
    correct: null,
    score: null,
    groundTruth: null,
    confidence: null,
    margin: null,
    latencyMs: null,
    frameIndices: null,
    sourceTag: null,
    protocolNote: null,
    ...p,
  };
}

export function batch(file: string, parts: { items?: ItemMeta[]; responses?: ResponseRow[]; configs?: ConfigSpec[]; format?: string }): ImportBatch {
  const body = JSON.stringify(parts);
  return {
    run: { sourcePath: file, sha256: crypto.createHash('sha256').update(body).digest('hex'), format: parts.format ?? 'test', toolkit: null, modelArgs: null },
    items: parts.items ?? [],
    responses: parts.responses ?? [],
    configs: parts.configs ?? [],
    warnings: [],
  };
}

export function sha256File(file: string): string {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

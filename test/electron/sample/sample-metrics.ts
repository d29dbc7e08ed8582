/** Test helper: the engine's §2 counts for every simulated model of the sample. */
import type { ImportBatch, ResponseMatrix } from '../../../shared/domain/types';
import { createMatrix } from '../../../shared/engine/matrix';
import { mcqaMetrics } from '../../../shared/engine/mcqa';

export function matrixFromBatch(batch: ImportBatch): ResponseMatrix {
  const first = batch.responses[0]!;
  const itemIds = [...new Set(batch.responses.map((r) => r.sampleId))];
  const m = createMatrix({ model: first.model, split: first.split, kind: 'mcqa', itemIds, configs: batch.configs });
  const row = new Map(itemIds.map((id, i) => [id, i]));
  const col = new Map(m.configs.map((c, j) => [c.key, j]));
  for (const r of batch.responses) {
    const cell = row.get(r.sampleId)! * m.configs.length + col.get(r.config)!;
    m.correct[cell] = r.correct ? 1 : 0;
    m.frameIndices[cell] = r.frameIndices ? Int32Array.from(r.frameIndices) : null;
  }
  return m;
}

export function totals(matrices: ResponseMatrix[]): { terminalRegressions: number; visuallyConfused: number; textOverwritten: number } {
  const t = { terminalRegressions: 0, visuallyConfused: 0, textOverwritten: 0 };
  for (const m of matrices) {
    const c = mcqaMetrics(m).counts;
    t.terminalRegressions += c.terminalRegressions;
    t.visuallyConfused += c.visuallyConfused;
    t.textOverwritten += c.textOverwritten;
  }
  return t;
}

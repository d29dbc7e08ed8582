/**
 * Varied response rows over several grids, shared by the store's readers' tests
 * (column-scan.test.ts, matrix-load.test.ts): names whose code-point order differs from their
 * order here, holes in rows and columns, and every optional field present in some cells only.
 */
import type { ResponseRow } from '../../../shared/domain/types';
import { config, response } from './helpers';

export const CONFIGS = [config('textonly', 0), config('8f', 8), config('16f', 16)];
export const MODELS = ['b-model', 'Z', 'a-model'];
export const SPLITS = ['s2', 's1'];
export const ITEMS = ['q2', 'é', 'Q1', 'q10'];

/** A varied cell for each (model, split, item, config), with some left out so rows have holes. */
export function gridRows(): ResponseRow[] {
  const out: ResponseRow[] = [];
  let line = 1;
  let n = 0;
  for (const model of MODELS)
    for (const split of SPLITS)
      for (const sampleId of ITEMS)
        for (const c of CONFIGS) {
          n++;
          // Holes: one item never seen by the first config of each grid (so a later column
          // brings a row of its own), one grid without textonly.
          if (sampleId === 'é' && c.key === '16f') continue;
          if (model === 'Z' && split === 's1' && c.key === 'textonly') continue;
          const pred = n % 5 === 0 ? null : 'ABCD'[n % 4]!;
          // One answer per item (the store checks), stated in most of its rows.
          const answer = 'ABCD'[(ITEMS.indexOf(sampleId) + SPLITS.indexOf(split)) % 4]!;
          const groundTruth = n % 7 === 0 ? null : answer;
          out.push(
            response({
              model,
              split,
              sampleId,
              config: c.key,
              line: line++,
              pred,
              groundTruth,
              // As the answers say (the store checks; no prediction is a wrong one).
              correct: pred === answer,
              score: n % 4 === 0 ? n / 100 : null,
              // Only 16f columns carry a confidence, latency, frames or a margin.
              confidence: c.key === '16f' && n % 2 === 0 ? n / 1000 : null,
              margin: c.key === '16f' && n % 3 === 1 ? -n / 10 : null,
              latencyMs: c.key === '16f' ? n * 10 : null,
              frameIndices: c.key === '16f' && n % 2 === 1 ? [n, n + 1, n + 2] : null,
              sourceTag: `tag-${model}`,
              protocolNote: n % 6 === 0 ? 'fallback, note' : null,
            }),
          );
        }
  return out;
}

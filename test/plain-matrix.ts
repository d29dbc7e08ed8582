/** Every field of a ResponseMatrix as plain data (typed arrays as arrays, frame lists as arrays, undefined as null), for toEqual. */
import type { ResponseMatrix } from '../shared/domain/types';

export function plainMatrix(m: ResponseMatrix) {
  return {
    model: m.model,
    split: m.split,
    kind: m.kind,
    itemIds: m.itemIds,
    configs: m.configs.map((c) => c.key),
    correct: Array.from(m.correct),
    score: Array.from(m.score),
    confidence: Array.from(m.confidence),
    margin: Array.from(m.margin),
    latencyMs: Array.from(m.latencyMs),
    frameIndices: Array.from(m.frameIndices, (f) => (f ? Array.from(f) : null)),
  };
}

import type { ImportBatch } from '../../shared/domain/types';

/**
 * Answers from another import (lmms-eval log, Video-MME parquet, MLVU JSON, per_item.csv),
 * looked up by (split, sample id). Sources often name splits differently (`videomme` vs
 * `V1_short`), so a sample id whose answer is the same in every split of the source is
 * used whatever the split; ids that collide with different answers need the exact split.
 */
export class GroundTruth {
  private readonly exact = new Map<string, string>();
  private readonly byId = new Map<string, string | null>();

  constructor(batches: ImportBatch[]) {
    const put = (split: string, id: string, answer: string | null | undefined): void => {
      if (!answer) return;
      this.exact.set(`${split}\u0000${id}`, answer);
      const prev = this.byId.get(id);
      if (prev === undefined) this.byId.set(id, answer);
      else if (prev !== answer) this.byId.set(id, null);
    };
    for (const b of batches) {
      for (const it of b.items) put(it.split, it.sampleId, it.answer);
      for (const r of b.responses) put(r.split, r.sampleId, r.groundTruth);
    }
  }

  get size(): number {
    return this.byId.size;
  }

  answer(split: string, sampleId: string): string | null {
    return this.exact.get(`${split}\u0000${sampleId}`) ?? this.byId.get(sampleId) ?? null;
  }
}

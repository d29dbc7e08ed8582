/**
 * Evidence coverage: for each evidence span an annotator marked, which configs
 * sampled at least one frame inside it. Exported as `covered_by` (docs/release-format.md).
 *
 * Spans are closed intervals [startS, endS]: a frame sampled exactly at a boundary counts as
 * seen, because the annotator marks the span on the same frame timestamps the strip shows.
 */

export interface EvidenceSpan {
  startS: number;
  endS: number;
}

export interface ConfigTimestamps {
  config: string;
  /** Timestamps (seconds) of the frames that config sampled, in any order. */
  timestamps: readonly number[];
}

export interface SpanCoverage {
  /** Index of the span in the input. */
  span: number;
  /** Configs with a sampled timestamp inside the span, in the order the configs were given. */
  coveredBy: string[];
}

export function evidenceCoverage(spans: readonly EvidenceSpan[], configs: readonly ConfigTimestamps[]): SpanCoverage[] {
  spans.forEach((sp, i) => {
    if (!Number.isFinite(sp.startS) || !Number.isFinite(sp.endS)) throw new RangeError(`evidence span #${i}: start and end must be finite numbers`);
    if (sp.endS < sp.startS) throw new RangeError(`evidence span #${i}: end ${sp.endS} is before start ${sp.startS}`);
  });
  // Sort each config's timestamps once; a span query is then one binary search per config.
  const sorted = configs.map((c) => Float64Array.from(c.timestamps).sort());
  return spans.map((sp, span) => ({
    span,
    coveredBy: configs.filter((_, k) => hasValueIn(sorted[k]!, sp.startS, sp.endS)).map((c) => c.config),
  }));
}

/** Whether a sorted array holds a value v with lo ≤ v ≤ hi. */
function hasValueIn(values: Float64Array, lo: number, hi: number): boolean {
  let a = 0;
  let b = values.length;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (values[mid]! < lo) a = mid + 1;
    else b = mid;
  }
  return a < values.length && values[a]! <= hi;
}

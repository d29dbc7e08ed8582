/**
 * Which file brings an item's question text when the project lacks it (a release exported
 * without the benchmark's text, a log without `doc`), and the import split that files it under
 * the item's split (docs/formats.md "Video-MME metadata", "MLVU"). The item view and the Project
 * view say it and import that file in place.
 */
export interface QuestionSource {
  /** Which benchmark the split is of, or null when it cannot be told. */
  benchmark: 'Video-MME' | 'Video-MME-v2' | 'MLVU' | null;
  /** The file to import, in words. */
  file: string;
  /** `--split` for the import, so the file's items join this split's (undefined: the file's default). */
  split: string | undefined;
}

export function questionSource(split: string): QuestionSource {
  // The release's MLVU splits are the MLVU importer's defaults (MLVU / MLVU_gen).
  if (/^MLVU(_gen)?$/.test(split)) return { benchmark: 'MLVU', file: "MLVU's metadata JSON files (json/1_plotQA.json … 9_summary.json)", split: undefined };
  if (/mlvu/i.test(split)) return { benchmark: 'MLVU', file: "MLVU's metadata JSON files (json/1_plotQA.json … 9_summary.json)", split };
  if (/^V2_|video-?mme[-_]?v2/i.test(split)) return { benchmark: 'Video-MME-v2', file: "Video-MME-v2's question table test.parquet (MME-Benchmarks/Video-MME-v2)", split };
  const bucket = /^(.*)_(short|medium|long)$/.exec(split);
  if (bucket || /^video-?mme/i.test(split)) {
    return {
      benchmark: 'Video-MME',
      file: "Video-MME's question table videomme/test-00000-of-00001.parquet (lmms-lab/Video-MME)",
      // V1_short is one of Video-MME's duration buckets: the parquet's rows are filed by theirs.
      split: bucket ? `${bucket[1]}_{duration}` : split === 'videomme' ? undefined : split,
    };
  }
  return { benchmark: null, file: 'the benchmark\u2019s question file, or a release exported with its text (labels/items.csv)', split };
}

/**
 * The check of item ids an importer derived from a benchmark's structure (ImportBatch.derivedIds,
 * docs/formats.md "How items join"): before anything is applied, every derived id whose item
 * already has question text — in the project, or from another file of the same import that
 * names its ids itself (a parquet, an lmms-eval log) — must name the same question (and the
 * same video, when both are known). A mismatch means the file's rows are not in the benchmark's
 * order: an ImportError naming the row, so nothing changes. The outcome is reported as a note.
 */
import type Database from 'better-sqlite3';
import { ImportError } from '../importers/errors';
import type { ImportBatch } from '../../shared/domain/types';
import type { ImportOverrides } from './import-overrides';

interface Known {
  question: string | null;
  videoId: string | null;
  where: string;
}

/** Whitespace-insensitive: tables and spreadsheets re-wrap and trim text. */
function norm(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

export function checkDerivedIds(db: Database.Database, batches: ImportBatch[], opts: ImportOverrides = {}): string[] {
  if (!batches.some((b) => b.derivedIds && b.derivedIds.rows.length > 0)) return [];
  const splitOf = (s: string): string => opts.split ?? s;
  // Items of this import whose ids the file names itself.
  const named = new Map<string, Known>();
  for (const b of batches) {
    if (b.derivedIds) continue;
    for (const it of b.items) {
      if (!it.question) continue;
      named.set(`${splitOf(it.split)}\u0000${it.sampleId}`, { question: it.question, videoId: it.videoId ?? null, where: b.run.sourcePath });
    }
  }
  const stored = db.prepare<[string, string], { question: string | null; video_id: string | null }>(
    'SELECT i.question, i.video_id FROM items i JOIN splits s ON s.id = i.split_id WHERE s.name = ? AND i.sample_id = ?',
  );
  const notes: string[] = [];
  for (const b of batches) {
    const d = b.derivedIds;
    if (!d || d.rows.length === 0) continue;
    const file = b.run.sourcePath;
    let checked = 0;
    for (const r of d.rows) {
      const split = splitOf(r.split);
      let known = named.get(`${split}\u0000${r.sampleId}`) ?? null;
      if (!known) {
        const row = stored.get(split, r.sampleId);
        if (row && row.question) known = { question: row.question, videoId: row.video_id, where: 'the project' };
      }
      if (!known || !known.question || r.question === null) continue;
      if (norm(known.question) !== norm(r.question)) {
        throw new ImportError(
          file,
          r.line,
          r.field,
          `derived item id ${r.sampleId} (split ${split}) is a different question in ${known.where}: ` +
            `${JSON.stringify(known.question)}, not this row's ${JSON.stringify(r.question)}; the rows are not in the benchmark's order — add a question_id column`,
        );
      }
      if (known.videoId && r.videoId && known.videoId !== r.videoId) {
        throw new ImportError(
          file,
          r.line,
          r.field,
          `derived item id ${r.sampleId} (split ${split}) is of video ${known.videoId} in ${known.where}, not this row's ${r.videoId}; add a question_id column`,
        );
      }
      checked++;
    }
    const name = file.split(/[\\/]/).pop() ?? file;
    notes.push(
      checked === d.rows.length
        ? `${name}: all ${checked} derived item id(s) agree with the question text of the items already known (metadata in the project or this import)`
        : checked > 0
          ? `${name}: ${checked} of ${d.rows.length} derived item id(s) checked against known question text, all agree; the other ${d.rows.length - checked} have no question text to check yet`
          : `${name}: the ${d.rows.length} derived item id(s) could not be checked — no question text for them yet (import the benchmark's metadata, e.g. Video-MME's parquet, to check)`,
    );
  }
  return notes;
}

/**
 * JS step of migration 0020: converts the per-cell `responses` rows of schema 10 into
 * `response_columns` (one row per model, split, config), then drops the old table. Runs
 * inside migrate()'s single transaction, after its backup, so a failure leaves the file at 10.
 */
import type Database from 'better-sqlite3';
import { Column, createColumnWriter } from './response-columns';

type OldRow = [
  number,
  number,
  number,
  number,
  string | null,
  number | null,
  number | null,
  string | null,
  number | null,
  number | null,
  number | null,
  Buffer | null,
  string | null,
  string | null,
  number | null,
  number | null,
];

export function convertResponsesToColumns(db: Database.Database): void {
  const exists = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'responses'").get();
  if (!exists) return;
  const write = createColumnWriter(db);
  let col: Column | null = null;
  const rows = db
    .prepare(
      `SELECT model_id, split_id, config_id, item_id, pred, correct, score, ground_truth, confidence, margin, latency_ms, frame_indices,
         source_tag, protocol_note, run_id, line FROM responses ORDER BY model_id, split_id, config_id, item_id`,
    )
    .raw(true)
    .all() as OldRow[];
  for (const [m, s, c, item, pred, correct, score, gt, conf, margin, lat, fi, tag, note, run, line] of rows) {
    if (!col || col.modelId !== m || col.splitId !== s || col.configId !== c) {
      if (col) write(col);
      col = new Column(m, s, c);
    }
    const k = col.push(item);
    col.pred.set(k, pred);
    col.correct[k] = correct ?? -1;
    col.setFloat('score', k, score);
    col.groundTruth.set(k, gt);
    col.setFloat('confidence', k, conf);
    col.setFloat('margin', k, margin);
    col.setFloat('latencyMs', k, lat);
    col.setFrames(k, fi === null ? null : new Int32Array(fi.buffer.slice(fi.byteOffset, fi.byteOffset + fi.byteLength)));
    col.sourceTag.set(k, tag);
    col.protocolNote.set(k, note);
    col.runId[k] = run ?? 0;
    col.line[k] = line ?? -1;
  }
  if (col) write(col);
  db.exec('DROP INDEX IF EXISTS responses_by_item; DROP TABLE responses;');
}

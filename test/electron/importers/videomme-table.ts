// A Video-MME parquet table of synthetic questions, written with hyparquet-writer, for the
// parquet reader's tests (videomme-parquet.test.ts, parquet-deadline.test.ts).
import { parquetWriteBuffer } from 'hyparquet-writer';

/** One row per answer, three questions per video; `drop` leaves a column out. */
export function videoMmeTable(answers: string[], drop?: string): Uint8Array {
  const n = answers.length;
  const cols = [
    { name: 'video_id', data: Array.from({ length: n }, (_, i) => String(Math.floor(i / 3) + 1).padStart(3, '0')), type: 'STRING' as const },
    { name: 'duration', data: Array.from({ length: n }, (_, i) => (i < 3 ? 'short' : 'medium')), type: 'STRING' as const },
    { name: 'domain', data: Array.from({ length: n }, () => 'Knowledge'), type: 'STRING' as const },
    { name: 'sub_category', data: Array.from({ length: n }, () => 'History'), type: 'STRING' as const },
    { name: 'videoID', data: Array.from({ length: n }, (_, i) => `yt${Math.floor(i / 3)}`), type: 'STRING' as const },
    { name: 'question_id', data: Array.from({ length: n }, (_, i) => `${String(Math.floor(i / 3) + 1).padStart(3, '0')}-${(i % 3) + 1}`), type: 'STRING' as const },
    { name: 'task_type', data: Array.from({ length: n }, () => 'Counting Problem'), type: 'STRING' as const },
    { name: 'question', data: Array.from({ length: n }, (_, i) => `Synthetic question ${i}?`), type: 'STRING' as const },
    { name: 'options', data: Array.from({ length: n }, () => ['A. one', 'B. two', 'C. three', 'D. four']) },
    { name: 'answer', data: answers, type: 'STRING' as const },
  ].filter((c) => c.name !== drop);
  return new Uint8Array(parquetWriteBuffer({ columnData: cols }));
}

import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, describe, expect, it } from 'vitest';
import { openProject } from '../../../electron/store/project';
import { flipbook } from '../cli/cli-helpers';
import { Scratch } from './helpers';

/**
 * An lmms-eval Video-MME log and Video-MME's parquet of the same questions are one item per
 * question: both key items by Video-MME's own question_id (`001-1`) and default to the split
 * `videomme` (docs/formats.md "lmms-eval").
 */
const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const LOG = scratch.lmmsEvalLog('videomme');

function parquet(): Uint8Array {
  // The same three synthetic questions as the log, in Video-MME's table shape.
  const rows = [
    ['001', 'short', 'vid001', '001-1', 'Counting Problem', 'How many paper lanterns hang above the doorway?', ['A. Two.', 'B. Three.', 'C. Four.', 'D. Five.'], 'C'],
    [
      '001',
      'short',
      'vid001',
      '001-2',
      'Information Synopsis',
      'What is the video mainly about?',
      ['A. Folding paper lanterns.', 'B. A street parade.', 'C. A cooking lesson.', 'D. A weather report.'],
      'A',
    ],
    [
      '302',
      'medium',
      'vid302',
      '302-1',
      'Action Recognition',
      'What does the player in red do after the whistle?',
      ['A. Sits down.', 'B. Shoots a free throw.', 'C. Leaves the court.', 'D. Argues with the referee.'],
      'B',
    ],
  ] as const;
  const col = (name: string, k: number) => ({ name, data: rows.map((r) => r[k] as string), type: 'STRING' as const });
  return new Uint8Array(
    parquetWriteBuffer({
      columnData: [
        col('video_id', 0),
        col('duration', 1),
        { name: 'domain', data: rows.map(() => 'Knowledge'), type: 'STRING' as const },
        { name: 'sub_category', data: rows.map(() => 'Humanity & History'), type: 'STRING' as const },
        col('videoID', 2),
        col('question_id', 3),
        col('task_type', 4),
        col('question', 5),
        { name: 'options', data: rows.map((r) => [...r[6]]) },
        col('answer', 7),
      ],
    }),
  );
}

describe('lmms-eval log + Video-MME parquet', () => {
  for (const split of [null, 'V1_{duration}']) {
    it(`join on question_id into one item per question (${split ?? 'default split'})`, () => {
      const pq = scratch.write(`${split ? 'v1' : 'default'}/test-00000-of-00001.parquet`, parquet());
      const project = scratch.path(`${split ? 'v1' : 'default'}/p.flipbook`);
      const r = flipbook('import', LOG, pq, '--project', project, ...(split ? ['--split', split] : []));
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const p = openProject(project);
      try {
        const items = p.db
          .prepare(
            'SELECT s.name AS split, i.sample_id AS id, i.question AS q, i.options AS o, i.answer AS a, i.video_file AS v FROM items i JOIN splits s ON s.id = i.split_id ORDER BY 1, 2',
          )
          .all() as { split: string; id: string; q: string; o: string; a: string; v: string }[];
        const want = split ? ['V1_medium 302-1', 'V1_short 001-1', 'V1_short 001-2'] : ['videomme 001-1', 'videomme 001-2', 'videomme 302-1'];
        expect(items.map((i) => `${i.split} ${i.id}`)).toEqual(want);
        const first = items.find((i) => i.id === '001-1')!;
        expect([first.q, JSON.parse(first.o), first.a, first.v]).toEqual([
          'How many paper lanterns hang above the doorway?',
          ['Two.', 'Three.', 'Four.', 'Five.'],
          'C',
          'vid001.mp4',
        ]);
      } finally {
        p.close();
      }
    });
  }
});

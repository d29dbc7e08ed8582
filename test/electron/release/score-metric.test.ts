/**
 * An open-ended grid's aggregated JSON names the score its cells hold (docs/metrics.md §1,
 * docs/release-format.md): a grid of the file's own judge scores is never labelled `token_f1`,
 * and the grid says which score it holds in the project too.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readImport } from '../../../electron/importers/index';
import { exportRelease } from '../../../electron/release/export';
import { openProject } from '../../../electron/store/project';
import { Scratch } from '../importers/helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const meta = [
  { video: 'summary_1.mp4', question: 'Summarise the clip.', answer: 'A dog runs in a park.', question_type: 'summary' },
  { video: 'summary_2.mp4', question: 'Summarise the clip.', answer: 'Two people cook rice.', question_type: 'summary' },
];

function results(name: string, scored: boolean): string {
  const rows = meta.map((m, i) => ({
    video_name: m.video,
    Q: m.question,
    A: m.answer,
    pred: i === 0 ? 'A dog runs.' : 'People cook.',
    ...(scored && { score: i === 0 ? 0.9 : 0.4 }),
  }));
  return scratch.write(`res/${name}`, JSON.stringify(rows, null, 2));
}

describe('which score an open-ended grid holds', () => {
  it('judge scores export as their own metric, Token-F1 as token_f1', async () => {
    const batches = [
      ...(await readImport(results('Judge_mlvu_8f.json', true), { split: 'GEN_judge' })),
      ...(await readImport(results('Judge_mlvu_16f.json', true), { split: 'GEN_judge' })),
      ...(await readImport(results('Plain_mlvu_8f.json', false), { split: 'GEN_f1' })),
    ];
    const file = scratch.path('p.flipbook');
    const project = openProject(file, { create: true });
    try {
      project.applyImports(batches);
      expect(project.listGrids().map((g) => [g.model, g.split, g.kind, g.score])).toEqual([
        ['Judge', 'GEN_judge', 'open', 'score'],
        ['Plain', 'GEN_f1', 'open', 'token_f1'],
      ]);
      const out = scratch.path('export');
      await exportRelease(project, out);
      const agg = (name: string) => JSON.parse(readFileSync(path.join(out, 'labels/aggregated', name), 'utf8')) as { metric: string };
      expect(agg('Judge_GEN_judge.json').metric).toBe('score');
      expect(agg('Plain_GEN_f1.json').metric).toBe('token_f1');
    } finally {
      project.close();
    }
  });
});

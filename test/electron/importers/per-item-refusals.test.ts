/**
 * The per_item.csv rows the reader refuses or warns about (docs/release-format.md
 * "labels/per_item.csv", docs/formats.md "Damaged input"), each as file:line: field: reason:
 * empty names, a row with neither an outcome nor a score, frames on a text-only config, a second
 * answer for an item, a repeated cell that differs in any value, and a `correct` that disagrees
 * with the letters (kept, with a warning).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readPerItemCsv } from '../../../electron/importers/per-item-csv';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const HEADER = 'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note';
const OPTIONAL = `${HEADER},confidence,margin,latency_s,frame_indices,score`;
const GOOD = 'q1,M,S,8f,8,,A,A,1,t,';

/** A per_item.csv of the given rows after one good row; its path. */
const file = (rows: string[], header = HEADER): string => scratch.freshFile('per_item.csv', `${header}\n${[header === HEADER ? GOOD : `${GOOD},,,,,`, ...rows].join('\n')}\n`);
const refused = (rows: string[], where: { line: number; field: string; reason: RegExp }, header = HEADER) => {
  const p = file(rows, header);
  return expectImportError(readPerItemCsv(p, {}, p), { file: 'per_item.csv', ...where });
};

describe('per_item.csv rows', () => {
  it('refuses an empty sample id, model, split or config', async () => {
    await refused([',M,S,8f,8,,A,A,1,t,'], { line: 3, field: 'sample_id', reason: /^empty$/ });
    await refused(['q2,,S,8f,8,,A,A,1,t,'], { line: 3, field: 'model', reason: /^empty$/ });
    await refused(['q2,M,,8f,8,,A,A,1,t,'], { line: 3, field: 'split', reason: /^empty$/ });
    await refused(['q2,M,S,,8,,A,A,1,t,'], { line: 3, field: 'config', reason: /^empty$/ });
    // Also in a row that changes model and split.
    await refused(['q2,N,T,,8,,A,A,1,t,'], { line: 3, field: 'config', reason: /^empty$/ });
  });

  it('refuses a name holding a control character and free text holding NUL, at the row that brings it', async () => {
    const cases: [string, string, RegExp][] = [
      ['q\t2,M,S,8f,8,,A,A,1,t,', 'sample_id', /^holds the control character U\+0009 at character 2/],
      ['q2,M\u0001,S,8f,8,,A,A,1,t,', 'model', /^holds the control character U\+0001 at character 2/],
      ['q2,M,S\u007f,8f,8,,A,A,1,t,', 'split', /^holds the control character U\+007F at character 2/],
      ['q2,M,S,8f,8,,A,A,1,t\u0000x,', 'source_tag', /^holds a NUL byte at character 2$/],
      ['q2,M,S,8f,8,,A,A,1,t,n\u0000', 'protocol_note', /^holds a NUL byte at character 2$/],
    ];
    for (const [row, field, reason] of cases) await refused([row], { line: 3, field, reason });
    // The config is checked as a key first: a control character makes it none.
    await refused(['q2,M,S,8f\u0001,8,,A,A,1,t,'], { line: 3, field: 'config', reason: /./ });
    // Also when the name was met before in the file: only new names are checked, and this one is new.
    await refused(['q2,M,S,8f,8,,A,A,1,t,', 'q3,M,S,8f,8,,A,A,1,t,\u0000'], { line: 4, field: 'protocol_note', reason: /^holds a NUL byte/ });
  });

  it('refuses a correct that is not 0 or 1, and a row with neither a correct nor a score', async () => {
    for (const v of ['2', 'yes', '01', 'true']) await refused([`q2,M,S,8f,8,,A,A,${v},t,`], { line: 3, field: 'correct', reason: new RegExp(`^expected 0 or 1, got "${v}"$`) });
    await refused(['q2,M,S,8f,8,,A,A,,t,'], { line: 3, field: 'correct', reason: /^empty, and no score: a row needs 0\/1 \(MCQA\) or a score \(open-ended\)$/ });
    // A score is enough.
    const p = file(['q2,M,S,8f,8,,,,,t,,,,,,0.5'], OPTIONAL);
    const b = await readPerItemCsv(p, {}, p);
    expect(b.responses.map((r) => [r.sampleId, r.correct, r.score])).toEqual([
      ['q1', true, null],
      ['q2', null, 0.5],
    ]);
  });

  it('refuses frame indices on a text-only config, and takes them on any other', async () => {
    await refused(
      ['q2,M,S,textonly,0,,A,A,1,t,,,,,0 4,'],
      { line: 3, field: 'frame_indices', reason: /^config textonly sees no frames \(frame_count 0\) but the row lists 2 frame indices$/ },
      OPTIONAL,
    );
    const p = file(['q2,M,S,textonly,0,,A,A,1,t,,,,, ,', 'q3,M,S,8f,8,,A,A,1,t,,0.9,0.2,1.5,0 4,'], OPTIONAL);
    const b = await readPerItemCsv(p, {}, p);
    expect(b.responses.map((r) => [r.sampleId, r.config, r.frameIndices, r.confidence, r.margin, r.latencyMs])).toEqual([
      ['q1', '8f', null, null, null, null],
      ['q2', 'textonly', [], null, null, null],
      ['q3', '8f', [0, 4], 0.9, 0.2, 1500],
    ]);
  });

  it('refuses a second answer for an item, naming both lines', async () => {
    await refused(['q1,M,S,16f,16,,A,B,0,t,'], {
      line: 3,
      field: 'ground_truth_option',
      reason: /^duplicate item \(split S, sample q1\) with a different value: B here, A at line 2$/,
    });
  });

  it('refuses a repeated cell that differs in any value, naming the column', async () => {
    const rows: [string, string, RegExp][] = [
      ['q1,M,S,8f,8,,B,A,0,t,,,,,,', 'predicted_option', /"B" here, "A" at line 2$/],
      ['q1,M,S,8f,8,,A,A,0,t,,,,,,', 'correct', /false here, true at line 2$/],
      ['q1,M,S,8f,8,,A,A,,t,,,,,,0.5', 'correct', /null here, true at line 2$/],
      ['q1,M,S,8f,8,,A,A,1,t,,,,,,0.5', 'score', /0\.5 here, null at line 2$/],
      // A repeat without the ground truth: the item's is known, this cell's is not.
      ['q1,M,S,8f,8,,A,,1,t,,,,,,', 'ground_truth_option', /null here, "A" at line 2$/],
      ['q1,M,S,8f,8,,A,A,1,t,,0.5,,,,', 'confidence', /0\.5 here, null at line 2$/],
      ['q1,M,S,8f,8,,A,A,1,t,,,0.5,,,', 'margin', /0\.5 here, null at line 2$/],
      ['q1,M,S,8f,8,,A,A,1,t,,,,2,,', 'latency_s', /2000 here, null at line 2$/],
    ];
    for (const [row, field, reason] of rows) {
      await refused(
        [row],
        { line: 3, field, reason: new RegExp(`^duplicate key \\(model M, split S, sample q1, config 8f\\) with a different value: ${reason.source}`) },
        OPTIONAL,
      );
    }
  });

  it('keeps a correct that disagrees with the letters as written, and says how many did', async () => {
    // No letter, or no answer: nothing to disagree with. A quoted correct reads as well.
    const p = file([
      'q2,M,S,8f,8,,A,B,1,t,',
      'q3,M,S,8f,8,,B,B,0,t,',
      'q4,M,S,8f,8,,,B,0,t,',
      'q5,M,S,8f,8,,C,,1,t,',
      'q6,M,S,8f,8,,,B,1,t,',
      'q7,M,S,8f,8,,A,B,"0",t,',
      'q8,M,S,8f,8,,B,B,"1",t,',
    ]);
    const b = await readPerItemCsv(p, {}, 'shown/per_item.csv');
    expect(b.responses.map((r) => [r.sampleId, r.pred, r.groundTruth, r.correct])).toEqual([
      ['q1', 'A', 'A', true],
      ['q2', 'A', 'B', true],
      ['q3', 'B', 'B', false],
      ['q4', null, 'B', false],
      ['q5', 'C', null, true],
      ['q6', null, 'B', true],
      ['q7', 'A', 'B', false],
      ['q8', 'B', 'B', true],
    ]);
    expect(b.warnings).toEqual(['shown/per_item.csv: 2 row(s) whose correct disagrees with predicted_option vs ground_truth_option (kept as written)']);
    const one = file(['q2,M,S,8f,8,,A,B,1,t,']);
    expect((await readPerItemCsv(one, {}, 'one.csv')).warnings).toEqual([
      'one.csv: 1 row(s) whose correct disagrees with predicted_option vs ground_truth_option (kept as written)',
    ]);
  });
});

/**
 * The check of item ids an importer derived from a benchmark's order
 * (electron/store/derived-ids.ts, docs/formats.md "How items join"), on a real project: each
 * derived id whose item already has question text, in the project or from another file of the
 * same import, must name the same question (whitespace aside) and the same video; a mismatch
 * is an ImportError naming the row; the outcome is a note.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDerivedIds } from '../../../electron/store/derived-ids';
import { openProject, type Project } from '../../../electron/store/index';
import type { DerivedId, ImportBatch, ItemMeta } from '../../../shared/domain/types';
import { batch, importRefusal, tempDir } from './helpers';

/** A project whose items q1 and q2 of split `vmme` have question text (q2 a video too); q3 has none. */
function project(): Project {
  const p = openProject(path.join(tempDir('flipbook-derived-'), 'p.flipbook'), { create: true });
  p.applyImport(
    batch('meta/videomme.parquet', {
      items: [
        { split: 'vmme', sampleId: 'q1', question: 'How many  cubes\nare there?' },
        { split: 'vmme', sampleId: 'q2', question: 'What colour is the car?', videoId: 'vid-2' },
        { split: 'vmme', sampleId: 'q3', question: null },
      ],
    }),
  );
  return p;
}
const row = (sampleId: string, question: string | null, line: number, extra: Partial<DerivedId> = {}): DerivedId => ({
  split: 'vmme',
  sampleId,
  question,
  videoId: null,
  line,
  field: 'index',
  ...extra,
});
const derived = (file: string, rows: DerivedId[]): ImportBatch => ({ ...batch(file, {}), derivedIds: { how: 'row order', rows } });
const named = (file: string, items: ItemMeta[]): ImportBatch => batch(file, { items });

describe('derived item ids', () => {
  it('no derived ids, or none in a batch: nothing checked and no note', () => {
    const p = project();
    expect(checkDerivedIds(p.db, [named('a.json', [])])).toEqual([]);
    expect(checkDerivedIds(p.db, [derived('x/a.tsv', [])])).toEqual([]);
  });

  it('all agree with the project (whitespace aside): a note saying so, by file name', () => {
    const p = project();
    const notes = checkDerivedIds(p.db, [
      derived('runs/M_8frame.tsv', [row('q1', ' How many cubes are\tthere? ', 2), row('q2', 'What colour is the car?', 3, { videoId: 'vid-2' })]),
    ]);
    expect(notes).toEqual(['M_8frame.tsv: all 2 derived item id(s) agree with the question text of the items already known (metadata in the project or this import)']);
  });

  it('some with nothing to check against, and none: notes saying how many', () => {
    const p = project();
    // q3 has no question text, q9 is unknown, and a row without its own text is not checked.
    const some = checkDerivedIds(p.db, [
      derived('C:\\runs\\M.tsv', [row('q1', 'How many cubes are there?', 2), row('q3', 'Anything?', 3), row('q9', 'New?', 4), row('q2', null, 5)]),
    ]);
    expect(some).toEqual(['M.tsv: 1 of 4 derived item id(s) checked against known question text, all agree; the other 3 have no question text to check yet']);
    const none = checkDerivedIds(p.db, [derived('N.tsv', [row('q9', 'New?', 2)])]);
    expect(none).toEqual([
      "N.tsv: the 1 derived item id(s) could not be checked — no question text for them yet (import the benchmark's metadata, e.g. Video-MME's parquet, to check)",
    ]);
  });

  it('another question is refused, naming the file, the row and the field it was derived from', () => {
    const p = project();
    const e = importRefusal(() =>
      checkDerivedIds(p.db, [derived('runs/M.tsv', [row('q1', 'How many cubes are there?', 2), row('q2', 'What is the dog doing?', 3, { field: 'row' })])]),
    );
    expect([e.file, e.line, e.field]).toEqual(['runs/M.tsv', 3, 'row']);
    expect(e.reason).toBe(
      'derived item id q2 (split vmme) is a different question in the project: "What colour is the car?", not this row\'s "What is the dog doing?"; the rows are not in the benchmark\'s order — add a question_id column',
    );
  });

  it('another video is refused; a row or an item without a video is not', () => {
    const p = project();
    const e = importRefusal(() => checkDerivedIds(p.db, [derived('M.tsv', [row('q2', 'What colour is the car?', 4, { videoId: 'vid-9' })])]));
    expect([e.line, e.reason]).toEqual([4, "derived item id q2 (split vmme) is of video vid-2 in the project, not this row's vid-9; add a question_id column"]);
    expect(checkDerivedIds(p.db, [derived('M.tsv', [row('q2', 'What colour is the car?', 4)])])).toHaveLength(1);
    expect(checkDerivedIds(p.db, [derived('M.tsv', [row('q1', 'How many cubes are there?', 4, { videoId: 'vid-1' })])])).toHaveLength(1);
  });

  it("another file of the same import that names its ids is checked against first, under the import's split", () => {
    const p = project();
    const parquet = named('meta/other.parquet', [
      { split: 'raw', sampleId: 'q1', question: 'Which hand moves first?', videoId: 'vid-1' },
      { split: 'raw', sampleId: 'q4', question: null },
    ]);
    const e = importRefusal(() => checkDerivedIds(p.db, [parquet, derived('M.tsv', [row('q1', 'How many cubes are there?', 2, { split: 'other' })])], { split: 'vmme' }));
    expect(e.reason).toBe(
      'derived item id q1 (split vmme) is a different question in meta/other.parquet: "Which hand moves first?", not this row\'s "How many cubes are there?"; the rows are not in the benchmark\'s order — add a question_id column',
    );
    // Without the split override the file's own split is used: no item there.
    expect(checkDerivedIds(p.db, [parquet, derived('M.tsv', [row('q1', 'How many cubes are there?', 2, { split: 'other' })])])).toEqual([
      "M.tsv: the 1 derived item id(s) could not be checked — no question text for them yet (import the benchmark's metadata, e.g. Video-MME's parquet, to check)",
    ]);
    // A named item without question text leaves the project's to check against.
    const blank = named('meta/blank.parquet', [{ split: 'vmme', sampleId: 'q1', question: null }]);
    expect(checkDerivedIds(p.db, [blank, derived('M.tsv', [row('q1', 'How many cubes are there?', 2)])])[0]).toMatch(/^M\.tsv: all 1 /);
  });

  it('a batch with derived ids is not itself a source of named ids', () => {
    const p = project();
    const first = { ...derived('A.tsv', [row('q7', 'One?', 2)]), items: [{ split: 'vmme', sampleId: 'q7', question: 'One?' }] };
    const second = derived('B.tsv', [row('q7', 'Two?', 2)]);
    expect(checkDerivedIds(p.db, [first, second])).toHaveLength(2);
  });
});

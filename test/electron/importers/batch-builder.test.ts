/**
 * BatchBuilder, where every importer's rows and items are collected (docs/formats.md "Damaged
 * input", "Importing the same cell again"): names checked as printable, free text checked for
 * NUL, frames refused on a text-only config, a repeated row tolerated only when it says the
 * same, and an item's fields merged across rows unless two rows disagree.
 */
import { describe, expect, it } from 'vitest';
import type { ItemMeta, ResponseRow } from '../../../shared/domain/types';
import { BatchBuilder, emptyResponse, expandSplit, splitFor } from '../../../electron/importers/batch-builder';
import { specFor } from '../../../electron/importers/config-keys';
import { refusalOf } from './helpers';

const FILE = 'runs/m.jsonl';

const row = (over: Partial<ResponseRow> = {}): ResponseRow => ({ ...emptyResponse('M', 'S', 'q1', '8f', 2), pred: 'A', correct: true, ...over });

describe('emptyResponse', () => {
  it('has every optional column unset', () => {
    expect(emptyResponse('M', 'S', 'q1', '8f', 7)).toEqual({
      model: 'M',
      split: 'S',
      sampleId: 'q1',
      config: '8f',
      pred: null,
      correct: null,
      score: null,
      groundTruth: null,
      confidence: null,
      margin: null,
      latencyMs: null,
      frameIndices: null,
      sourceTag: null,
      protocolNote: null,
      line: 7,
    });
  });
});

describe('addResponse', () => {
  it('keeps rows in file order, across cells in any order', () => {
    const b = new BatchBuilder(FILE);
    const rows = [
      row(),
      row({ config: '16f', line: 3 }),
      row({ sampleId: 'q2', line: 4 }),
      row({ model: 'N', line: 5 }),
      row({ split: 'T', line: 6 }),
      row({ sampleId: 'q2', config: '16f', line: 7 }),
    ];
    for (const r of rows) b.addResponse(r);
    expect(b.responses).toEqual(rows);
    // The same keys again, interleaved: each is found in its own cell.
    for (const r of [...rows].reverse()) b.addResponse({ ...r, line: r.line + 100 });
    expect(b.responses).toEqual(rows);
    expect(b.finish({ sourcePath: FILE, sha256: 'x', format: 'f', toolkit: 't', modelArgs: null }).warnings).toEqual(['m.jsonl: 6 repeated identical row(s) ignored']);
  });

  it('refuses a second row for a key that differs in any compared column, naming the column', () => {
    const fields: [keyof ResponseRow, unknown][] = [
      ['pred', 'B'],
      ['correct', false],
      ['score', 0.5],
      ['groundTruth', 'C'],
      ['confidence', 0.9],
      ['margin', 0.1],
      ['latencyMs', 12],
    ];
    for (const [f, v] of fields) {
      const b = new BatchBuilder(FILE);
      b.addResponse(row());
      const e = refusalOf(() => b.addResponse(row({ [f]: v, line: 9 })));
      expect([e.file, e.line, e.field]).toEqual([FILE, 9, f]);
      expect(e.reason).toBe(`duplicate key (model M, split S, sample q1, config 8f) with a different value: ${JSON.stringify(v)} here, ${JSON.stringify(row()[f])} at line 2`);
    }
    // Another answer and so another outcome: the answer is named, the column the outcome comes from.
    const both = new BatchBuilder(FILE);
    both.addResponse(row());
    expect(refusalOf(() => both.addResponse(row({ groundTruth: 'C', correct: false, line: 9 }))).field).toBe('groundTruth');
    // Columns that are not compared: a note or a tag may differ.
    const b = new BatchBuilder(FILE);
    b.addResponse(row());
    b.addResponse(row({ sourceTag: 'x', protocolNote: 'y', line: 3 }));
    expect(b.responses).toHaveLength(1);
  });

  it("names a column by the importer's own name for it", () => {
    const b = new BatchBuilder(FILE);
    b.fieldName = (f) => (f === 'pred' ? 'resps' : f === 'sampleId' ? 'doc_id' : `x_${f}`);
    b.addResponse(row());
    expect(refusalOf(() => b.addResponse(row({ pred: 'B', line: 3 }))).field).toBe('resps');
    expect(refusalOf(() => b.addResponse(row({ sampleId: 'a\u0001b', line: 4 }))).field).toBe('doc_id');
    expect(refusalOf(() => b.addResponse(row({ model: 'M\n', line: 5 }))).field).toBe('x_model');
  });

  it('refuses a name that is not printable and free text holding NUL, naming the field and the line', () => {
    const bad: [Partial<ResponseRow>, string, RegExp][] = [
      [{ model: 'M\u0007' }, 'model', /ids and names must be printable text/],
      [{ split: 'S\t1' }, 'split', /ids and names must be printable text/],
      [{ config: '8f\u0000' }, 'config', /printable/],
      [{ sampleId: 'q\u00851' }, 'sampleId', /printable/],
      [{ pred: 'A\u0000' }, 'pred', /NUL byte at character 2/],
      [{ groundTruth: '\u0000' }, 'groundTruth', /NUL byte at character 1/],
      [{ sourceTag: 'tag\u0000' }, 'sourceTag', /NUL/],
      [{ protocolNote: 'note\u0000' }, 'protocolNote', /NUL/],
    ];
    for (const [over, field, reason] of bad) {
      // Each on a builder that already holds a row of another cell, so that names are checked anew.
      const b = new BatchBuilder(FILE);
      b.addResponse(row({ model: 'Other', split: 'Other', config: 'other' }));
      const e = refusalOf(() => b.addResponse(row({ ...over, line: 12 })));
      expect([e.line, e.field], JSON.stringify(over)).toEqual([12, field]);
      expect(e.reason).toMatch(reason);
    }
    // Free text may hold anything else.
    const b = new BatchBuilder(FILE);
    b.addResponse(row({ pred: 'line\nbreak\ttab \u0085', groundTruth: '\u0007' }));
    expect(b.responses).toHaveLength(1);
  });

  it('checks the names of every row, also after a row of the same cell', () => {
    const b = new BatchBuilder(FILE);
    b.addResponse(row());
    expect(refusalOf(() => b.addResponse(row({ model: 'M\u0001', line: 3 }))).field).toBe('model');
    expect(refusalOf(() => b.addResponse(row({ split: 'S\u0001', line: 3 }))).field).toBe('split');
    expect(refusalOf(() => b.addResponse(row({ config: '8f\u0001', line: 3 }))).field).toBe('config');
  });

  it('refuses frame indices on a text-only config, and takes them on any other', () => {
    for (const config of ['textonly', 'textonly@cached']) {
      const b = new BatchBuilder(FILE);
      const e = refusalOf(() => b.addResponse(row({ config, frameIndices: [0, 5, 9], line: 4 })));
      expect([e.line, e.field, e.reason]).toEqual([4, 'frameIndices', `config ${config} sees no frames but the row lists 3 frame indices`]);
    }
    const b = new BatchBuilder(FILE);
    b.addResponse(row({ config: 'textonly', frameIndices: [] }));
    b.addResponse(row({ config: 'textonly@cached', frameIndices: null }));
    b.addResponse(row({ config: '8f', frameIndices: [1] }));
    b.addResponse(row({ config: 'my-textonly', frameIndices: [1] }));
    b.addResponse(row({ config: '8f@textonly', frameIndices: [1] }));
    expect(b.responses).toHaveLength(5);
  });
});

describe('addItem', () => {
  const item = (over: Partial<ItemMeta> = {}): ItemMeta => ({ split: 'S', sampleId: 'q1', question: 'Q?', ...over });

  it('merges the fields rows give of one item, first value kept, and refuses two that differ', () => {
    const b = new BatchBuilder(FILE);
    b.addItem(item({ answer: null, options: null }), 2);
    b.addItem(item({ question: null, answer: 'B', videoId: 'v1' }), 3);
    b.addItem(item({ options: ['a', 'b'], taskType: 'OCR' }), 4);
    b.addItem(item({ sampleId: 'q2' }), 5);
    b.addItem(item({ split: 'T' }), 6);
    expect([...b.items.values()]).toEqual([
      { split: 'S', sampleId: 'q1', question: 'Q?', answer: 'B', options: ['a', 'b'], videoId: 'v1', taskType: 'OCR', line: 2 },
      { split: 'S', sampleId: 'q2', question: 'Q?', line: 5 },
      { split: 'T', sampleId: 'q1', question: 'Q?', line: 6 },
    ]);
    const e = refusalOf(() => b.addItem(item({ answer: 'C' }), 7, { answer: 'gt' }));
    expect([e.line, e.field, e.reason]).toEqual([7, 'gt', 'duplicate item (split S, sample q1) with a different answer: "C" here, "B" at line 2']);
    const o = refusalOf(() => b.addItem(item({ options: ['a', 'c'] }), 8));
    expect([o.field, o.reason]).toEqual(['options', 'duplicate item (split S, sample q1) with a different options: ["a","c"] here, ["a","b"] at line 2']);
    // The same values again are no conflict.
    b.addItem(item({ options: ['a', 'b'], answer: 'B' }), 9);
    expect(b.finish({ sourcePath: FILE, sha256: 'x', format: 'f', toolkit: 't', modelArgs: null }).items[0]).toEqual({
      split: 'S',
      sampleId: 'q1',
      question: 'Q?',
      answer: 'B',
      options: ['a', 'b'],
      videoId: 'v1',
      taskType: 'OCR',
    });
  });

  it('refuses names that are not printable and text holding NUL, by the field names given', () => {
    const names = { sampleId: 'question_id', videoId: 'videoID', videoFile: 'video', options: 'candidates', references: 'refs', context: 'history', question: 'prompt' };
    const bad: [Partial<ItemMeta>, string][] = [
      [{ split: 'S\u0001' }, 'split'],
      [{ sampleId: 'q\n' }, 'question_id'],
      [{ videoId: 'v\u0002' }, 'videoID'],
      [{ videoFile: 'v\u0003.mp4' }, 'video'],
      [{ question: 'Q\u0000' }, 'prompt'],
      [{ answer: '\u0000' }, 'answer'],
      [{ taskType: 't\u0000' }, 'taskType'],
      [{ durationBucket: 's\u0000' }, 'durationBucket'],
      [{ domain: 'd\u0000' }, 'domain'],
      [{ subCategory: 'c\u0000' }, 'subCategory'],
      [{ options: ['a', 'b\u0000'] }, 'candidates'],
      [{ references: ['\u0000'] }, 'refs'],
      [{ context: { history: [], caption: 'c\u0000', summary: null, prompt: null } }, 'history'],
      [{ context: { history: [], caption: null, summary: 's\u0000', prompt: null } }, 'history'],
      [{ context: { history: [], caption: null, summary: null, prompt: 'p\u0000' } }, 'history'],
      [{ context: { history: [{ question: 'q\u0000', answer: 'a' }], caption: null, summary: null, prompt: null } }, 'history'],
      [{ context: { history: [{ question: 'q', answer: 'a\u0000' }], caption: null, summary: null, prompt: null } }, 'history'],
    ];
    for (const [over, field] of bad) {
      const e = refusalOf(() => new BatchBuilder(FILE).addItem(item(over), 14, names));
      expect([e.file, e.line, e.field], JSON.stringify(over)).toEqual([FILE, 14, field]);
    }
    // Without names given, the field's own; ids may be absent, and text may hold line breaks.
    expect(refusalOf(() => new BatchBuilder(FILE).addItem(item({ videoFile: 'v\u0003' }), 1)).field).toBe('videoFile');
    const b = new BatchBuilder(FILE);
    b.addItem(
      item({ videoId: null, videoFile: undefined, question: 'two\nlines', context: { history: [{ question: 'q', answer: 'a' }], caption: null, summary: null, prompt: null } }),
      1,
    );
    expect(b.items.size).toBe(1);
  });
});

describe('configs and the finished batch', () => {
  it('keeps the first spec of each config key, and names the file in the warning', () => {
    const b = new BatchBuilder('/data/runs/m_8frame.json');
    b.addConfig(specFor('8f', { toolkit: 'first' }));
    b.addConfig(specFor('8f', { toolkit: 'second' }));
    b.addConfig(specFor('16f'));
    b.addResponse(row());
    b.addResponse(row({ line: 3 }));
    b.addResponse(row({ line: 4 }));
    const run = { sourcePath: 'p', sha256: 'x', format: 'f', toolkit: 't', modelArgs: null };
    const batch = b.finish(run);
    expect(batch.configs.map((c) => [c.key, c.frames, c.toolkit])).toEqual([
      ['8f', 8, 'first'],
      ['16f', 16, specFor('16f').toolkit],
    ]);
    expect(batch.warnings).toEqual(['m_8frame.json: 2 repeated identical row(s) ignored']);
    expect(batch.run).toBe(run);
    expect(new BatchBuilder(FILE).finish(run).warnings).toEqual([]);
  });
});

describe('splits', () => {
  it('fills {duration} from the row, and refuses a row without one', () => {
    expect(expandSplit('V1', 'short')).toBe('V1');
    expect(expandSplit('V1_{duration}', 'long')).toBe('V1_long');
    expect(expandSplit('{duration}_{duration}', null)).toBe('unknown_unknown');
    expect(splitFor('V1_{duration}', 'medium', FILE, 3, 'duration')).toBe('V1_medium');
    expect(splitFor('V1', null, FILE, 3, 'duration')).toBe('V1');
    for (const d of [null, undefined, '', '  ']) {
      const e = refusalOf(() => splitFor('V1_{duration}', d, FILE, 3, 'duration'));
      expect([e.line, e.field, e.reason]).toEqual([3, 'duration', '--split V1_{duration} needs a duration bucket (short/medium/long) and this row has none']);
    }
  });
});

import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { eventsJsonl } from '../../../electron/release/annotation-events';
import { codebookJson, pathwaysCsv, spansCsv } from '../../../electron/release/annotation-files';
import type { ReleaseCodebook, ReleasePathwayRow, ReleaseSpanRow } from '../../../electron/release/release-data';
import type { AnnotationEvent } from '../../../shared/domain/annotations';

// docs/release-format.md, `annotations/`: every file's rows in a total order, so two exports
// of the same project are byte-identical whatever order the store hands them over in.

/** Every permutation of a short list (Heap's algorithm), to feed each order to a writer. */
function permutations<T>(xs: readonly T[]): T[][] {
  const out: T[][] = [];
  const a = xs.slice();
  const go = (k: number): void => {
    if (k <= 1) return void out.push(a.slice());
    for (let i = 0; i < k; i++) {
      go(k - 1);
      const j = k % 2 === 0 ? i : 0;
      [a[j], a[k - 1]] = [a[k - 1]!, a[j]!];
    }
  };
  go(a.length);
  return out;
}

const event = (uuid: string, at: string, over: Partial<AnnotationEvent> = {}): AnnotationEvent => ({
  uuid,
  at,
  annotator: 'ann',
  model: 'm',
  split: 's',
  sampleId: '001-1',
  kind: 'setStatus',
  payload: { status: 'done' },
  codebookVersion: 1,
  targetUuid: null,
  ...over,
});

describe('annotations/events.jsonl', () => {
  it('writes the events in (at, uuid) order, one JSON object per line with a fixed key order', () => {
    const events = [
      event('uuid-0002', '2026-01-01T00:00:01.000Z'),
      event('uuid-0001', '2026-01-01T00:00:02.000Z'),
      event('uuid-0003', '2026-01-01T00:00:01.000Z'),
      event('uuid-0000', '2026-01-01T00:00:03.000Z', { kind: 'undo', payload: { target: 'uuid-0001' }, targetUuid: 'uuid-0001', codebookVersion: null }),
    ];
    const expected = ['uuid-0002', 'uuid-0003', 'uuid-0001', 'uuid-0000'];
    for (const order of permutations(events)) {
      const text = eventsJsonl(order);
      expect(text.endsWith('\n')).toBe(true);
      const lines = text.slice(0, -1).split('\n');
      expect(lines.map((l) => (JSON.parse(l) as AnnotationEvent).uuid)).toEqual(expected);
    }
    const last = eventsJsonl(events).split('\n')[3]!;
    expect(Object.keys(JSON.parse(last) as object)).toEqual(['uuid', 'at', 'annotator', 'model', 'split', 'sampleId', 'kind', 'payload', 'codebookVersion', 'targetUuid']);
    expect(JSON.parse(last)).toEqual(events[3]);
    expect(eventsJsonl([])).toBe('');
  });

  it('leaves the caller’s array as it was', () => {
    const events = [event('b-uuid-01', '2026-01-01T00:00:02.000Z'), event('a-uuid-01', '2026-01-01T00:00:01.000Z')];
    eventsJsonl(events);
    expect(events.map((e) => e.uuid)).toEqual(['b-uuid-01', 'a-uuid-01']);
  });
});

const pathway = (model: string, split: string, sampleId: string, annotator: string): ReleasePathwayRow => ({
  sampleId,
  model,
  split,
  annotator,
  status: 'done',
  primaryPathway: 'missed_evidence',
  pathways: ['missed_evidence', 'text_prior'],
  transition: 'harmed',
  notes: 'a, "quoted" note',
  confidence: 0.5,
  codebookVersion: 2,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
});

describe('annotations/pathways.csv', () => {
  it('sorts by model, then split, then sample_id, then annotator, in code-point order', () => {
    const rows = [
      pathway('m', 's', '002', 'ann'),
      pathway('m', 's', '001', 'bob'),
      pathway('M', 't', '009', 'ann'),
      pathway('m', 'r', '009', 'ann'),
      pathway('m', 's', '001', 'ann'),
    ];
    const expected = [
      ['M', 't', '009', 'ann'],
      ['m', 'r', '009', 'ann'],
      ['m', 's', '001', 'ann'],
      ['m', 's', '001', 'bob'],
      ['m', 's', '002', 'ann'],
    ];
    for (const order of permutations(rows)) {
      const [header, ...body] = parse(pathwaysCsv(order)) as string[][];
      expect(header![0]).toBe('sample_id');
      expect(body.map((r) => [r[1], r[2], r[0], r[3]])).toEqual(expected);
    }
    expect((parse(pathwaysCsv(rows)) as string[][])[1]).toEqual([
      '009',
      'M',
      't',
      'ann',
      'done',
      'missed_evidence',
      'missed_evidence;text_prior',
      'harmed',
      'a, "quoted" note',
      '0.5',
      '2',
      '2026-01-01T00:00:00.000Z',
      '2026-01-02T00:00:00.000Z',
    ]);
    expect(rows.map((r) => r.sampleId)).toEqual(['002', '001', '009', '009', '001']);
  });
});

const span = (sampleId: string, startS: number, endS: number, label: string | null, coveredBy: string[], annotator = 'ann'): ReleaseSpanRow => ({
  sampleId,
  model: 'm',
  split: 's',
  annotator,
  startS,
  endS,
  label,
  coveredBy,
});

describe('annotations/evidence_spans.csv', () => {
  it('sorts by every column: (model, split, sample_id, annotator), start, end, label, covered_by', () => {
    const rows = [
      span('001', 10, 20, 'b', []),
      span('001', 10, 20, 'a', ['f64']),
      span('001', 10, 20, 'a', ['f32']),
      span('001', 10, 15, 'z', []),
      span('001', 9.5, 30, 'z', []),
      span('001', 2, 3, null, []),
      span('000', 50, 60, 'x', []),
      span('001', 1, 2, 'x', [], 'bob'),
    ];
    const expected = ['000 50 60 x ', '001 2 3  ', '001 9.5 30 z ', '001 10 15 z ', '001 10 20 a f32', '001 10 20 a f64', '001 10 20 b ', '001 1 2 x '];
    for (const order of permutations(rows.slice(0, 7))) {
      const body = (parse(spansCsv([rows[7]!, ...order])) as string[][]).slice(1);
      expect(body.map((r) => [r[0], r[4], r[5], r[6], r[7]].join(' '))).toEqual(expected);
    }
  });

  it('orders starts and ends by value, not as text, and a missing label before any label', () => {
    const body = (
      parse(
        spansCsv([
          span('001', 100, 200, 'a', []),
          span('001', 20, 300, 'a', []),
          span('001', 20, 1000, null, []),
          span('001', 20, 1000, '', ['f8']),
          span('001', 20, 1000, 'a', []),
        ]),
      ) as string[][]
    ).slice(1);
    expect(body.map((r) => `${r[4]}-${r[5]}:${r[6]}:${r[7]}`)).toEqual(['20-300:a:', '20-1000::', '20-1000::f8', '20-1000:a:', '100-200:a:']);
    // covered_by compares as the file writes it, `;`-joined: ['x', 'z'] ('x;z') before ['xy'].
    const covered = (parse(spansCsv([span('001', 1, 2, 'a', ['xy']), span('001', 1, 2, 'a', ['x', 'z'])])) as string[][]).slice(1);
    expect(covered.map((r) => r[7])).toEqual(['x;z', 'xy']);
    // The store's array is not reordered.
    const rows = [span('002', 1, 2, 'a', []), span('001', 1, 2, 'a', [])];
    spansCsv(rows);
    expect(rows.map((r) => r.sampleId)).toEqual(['002', '001']);
  });
});

describe('annotations/codebook.json', () => {
  it('writes the codebook with snake_case keys, and an empty one when the project has none', () => {
    const appliesTo = ['harmed', 'terminal_regression'];
    const cb: ReleaseCodebook = {
      id: 'flipbook-default',
      version: 3,
      pathways: [
        { id: 'missed_evidence', label: 'Missed evidence', description: 'd', appliesTo, shortcut: '1' },
        { id: 'text_prior', label: 'Text prior', description: 'e', appliesTo: 'any', shortcut: null },
      ],
    };
    expect(JSON.parse(codebookJson(cb))).toEqual({
      id: 'flipbook-default',
      version: 3,
      pathways: [
        { id: 'missed_evidence', label: 'Missed evidence', description: 'd', applies_to: ['harmed', 'terminal_regression'], shortcut: '1' },
        { id: 'text_prior', label: 'Text prior', description: 'e', applies_to: 'any', shortcut: null },
      ],
    });
    expect(JSON.parse(codebookJson(null))).toEqual({ id: null, version: null, pathways: [] });
  });
});

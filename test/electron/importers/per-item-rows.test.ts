/**
 * The per_item.csv reader's row code (electron/importers/per-item-rows.ts), rule by rule: option
 * letters A–H and the refusal of any other, the refusals naming the value they saw, the ground
 * truth that the first row stating one sets, the optional columns wherever they stand, and the
 * shortcuts for repeated bytes (model and split, config and its counts, the source tag), which
 * must give what the file says whether its fields are quoted, reordered or overridden.
 */
import { existsSync, readdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readPerItemCsv } from '../../../electron/importers/per-item-csv';
import type { ImportBatch, ResponseRow } from '../../../shared/domain/types';
import { INLINE } from './per-item-files';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const COLUMNS = ['sample_id', 'model', 'split', 'config', 'frame_count', 'pixel_count', 'predicted_option', 'ground_truth_option', 'correct', 'source_tag', 'protocol_note'];

/** A per_item.csv of `header` and `rows` (arrays of fields, or lines as written); its path. */
function csv(header: string[], rows: (string[] | string)[]): string {
  const lines = rows.map((r) => (typeof r === 'string' ? r : r.join(',')));
  return scratch.freshFile('per_item.csv', `${header.join(',')}\n${lines.join('\n')}\n`);
}

/** The file read inline, whole and in windows of a few bytes: one batch. */
async function read(path: string, opts: { model?: string; split?: string } = {}): Promise<ImportBatch> {
  const whole = await readPerItemCsv(path, opts, 'per_item.csv', INLINE);
  const small = await readPerItemCsv(path, opts, 'per_item.csv', INLINE, 48);
  expect(small.responses).toEqual(whole.responses);
  expect(small.warnings).toEqual(whole.warnings);
  return whole;
}

function refused(path: string, where: { line: number; field: string; reason: RegExp | string }) {
  const reason = typeof where.reason === 'string' ? new RegExp(`^${where.reason.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : where.reason;
  return expectImportError(readPerItemCsv(path, {}, 'per_item.csv', INLINE), { file: 'per_item.csv', ...where, reason });
}

/** Each response as its fields in a fixed order, lines left out. */
const cells = (b: ImportBatch): unknown[][] =>
  b.responses.map((r: ResponseRow) => [r.model, r.split, r.sampleId, r.config, r.pred, r.groundTruth, r.correct, r.score, r.sourceTag, r.protocolNote]);

/** A grid: 4 items × 2 models × 2 splits × 3 configs, tags per column, a note on some rows. */
function grid(): string[][] {
  const out: string[][] = [];
  for (const model of ['M1', 'M2'])
    for (const split of ['SA', 'SB'])
      for (let i = 0; i < 4; i++)
        for (const [config, fc, pc] of [
          ['textonly', '0', ''],
          ['16f_151k', '16', '150528'],
          ['32f', '32', ''],
        ] as const) {
          const gt = 'ABCDEFGH'[(i * 3) % 8]!;
          const pred = model === 'M2' && i % 2 === 1 ? 'ABCDEFGH'[(i * 3 + 1) % 8]! : gt;
          out.push([`q${i}`, model, split, config, fc, pc, pred, gt, pred === gt ? '1' : '0', `tag:${model}:${config}`, i === 2 ? 'a note' : '']);
        }
  return out;
}

describe('per_item.csv row code', () => {
  it('reads the letters A to H, and an empty one as none, quoted or not', async () => {
    const rows = [...'ABCDEFGH'].flatMap((l, i) => [
      [`q${i}`, 'M', 'S', '8f', '8', '', l, l, '1', 't', ''],
      [`q${i}`, 'M', 'S', '16f', '16', '', `"${l}"`, `"${l}"`, '1', 't', ''],
    ]);
    rows.push(['e', 'M', 'S', '8f', '8', '', '', '', '0', 't', ''], ['e', 'M', 'S', '16f', '16', '', '""', '""', '0', 't', '']);
    const b = await read(csv(COLUMNS, rows));
    expect(b.responses.map((r) => `${r.pred ?? '-'}${r.groundTruth ?? '-'}`)).toEqual([...[...'ABCDEFGH'].flatMap((l) => [l + l, l + l]), '--', '--']);
  });

  it('refuses any other letter in either column, naming the field and the value as written', async () => {
    for (const v of ['I', '@', 'a', 'AB', ' A', '"I"', '"AB"', '"@"']) {
      const shown = JSON.stringify(v.replace(/^"(.*)"$/, '$1'));
      await refused(
        csv(COLUMNS, [
          ['q1', 'M', 'S', '8f', '8', '', 'A', 'A', '1', 't', ''],
          ['q2', 'M', 'S', '8f', '8', '', v, 'A', '0', 't', ''],
        ]),
        {
          line: 3,
          field: 'predicted_option',
          reason: `expected a letter A–H or empty, got ${shown}`,
        },
      );
      await refused(
        csv(COLUMNS, [
          ['q1', 'M', 'S', '8f', '8', '', 'A', 'A', '1', 't', ''],
          ['q2', 'M', 'S', '8f', '8', '', 'A', v, '0', 't', ''],
        ]),
        {
          line: 3,
          field: 'ground_truth_option',
          reason: `expected a letter A–H or empty, got ${shown}`,
        },
      );
    }
  });

  it('counts a correct that disagrees with A as the ground truth too', async () => {
    const b = await read(
      csv(COLUMNS, [
        ['q1', 'M', 'S', '8f', '8', '', 'B', 'A', '1', 't', ''],
        ['q2', 'M', 'S', '8f', '8', '', 'A', 'B', '1', 't', ''],
        ['q3', 'M', 'S', '8f', '8', '', 'A', 'A', '0', 't', ''],
      ]),
    );
    expect(b.warnings).toEqual(['per_item.csv: 3 row(s) whose correct disagrees with predicted_option vs ground_truth_option (kept as written)']);
  });

  it("an item's ground truth is the first one a row states; rows without one leave it unset", async () => {
    const b = await read(
      csv(COLUMNS, [
        ['q1', 'M', 'S', 'textonly', '0', '', 'A', '', '1', 't', ''],
        ['q2', 'M', 'S', 'textonly', '0', '', 'A', '', '1', 't', ''],
        ['q1', 'M', 'S', '8f', '8', '', 'A', 'C', '0', 't', ''],
        ['q1', 'N', 'S', '8f', '8', '', 'C', 'C', '1', 't', ''],
        ['q1', 'N', 'S', 'textonly', '0', '', 'B', '', '0', 't', ''],
      ]),
    );
    // Only items with an answer are listed, each once.
    expect(b.items.map((i) => [i.sampleId, i.answer])).toEqual([['q1', 'C']]);
    expect(b.responses.map((r) => r.groundTruth)).toEqual([null, null, 'C', 'C', null]);
    await refused(
      csv(COLUMNS, [
        ['q1', 'M', 'S', 'textonly', '0', '', 'A', 'A', '1', 't', ''],
        ['q1', 'M', 'S', '8f', '8', '', 'A', '', '1', 't', ''],
        ['q1', 'M', 'S', '16f', '16', '', 'A', 'B', '0', 't', ''],
      ]),
      { line: 4, field: 'ground_truth_option', reason: 'duplicate item (split S, sample q1) with a different value: B here, A at line 2' },
    );
  });

  it('refuses a bad optional value naming its column, and reads latency in seconds as milliseconds', async () => {
    const header = [...COLUMNS, 'score', 'confidence', 'margin', 'latency_s'];
    const good = ['q1', 'M', 'S', '8f', '8', '', 'A', 'A', '1', 't', ''];
    for (const [i, field] of ['score', 'confidence', 'margin', 'latency_s'].entries()) {
      const bad = ['', '', '', ''];
      bad[i] = 'x';
      await refused(
        csv(header, [
          [...good, '', '', '', ''],
          ['q2', ...good.slice(1), ...bad],
        ]),
        { line: 3, field, reason: /x/ },
      );
      const over = ['', '', '', ''];
      over[i] = '-1';
      await refused(csv(header, [['q2', ...good.slice(1), ...over]]), { line: 2, field, reason: /-1/ });
    }
    const b = await read(csv(header, [[...good, '0.25', '0.5', '0.75', '1.5']]));
    expect(b.responses.map((r) => [r.score, r.confidence, r.margin, r.latencyMs])).toEqual([[0.25, 0.5, 0.75, 1500]]);
  });

  it('reads an optional column that stands first, alone', async () => {
    const base = ['q1', 'M', 'S', '8f', '8', '', 'A', 'A', '1', 't', ''];
    const cases: [string, string, (r: ResponseRow) => unknown, unknown][] = [
      ['score', '0.5', (r) => r.score, 0.5],
      ['confidence', '0.5', (r) => r.confidence, 0.5],
      ['margin', '0.5', (r) => r.margin, 0.5],
      ['latency_s', '2', (r) => r.latencyMs, 2000],
      ['frame_indices', '1 2', (r) => r.frameIndices, [1, 2]],
    ];
    for (const [name, value, get, want] of cases) {
      const b = await read(csv([name, ...COLUMNS], [`"${value}",${base.join(',')}`]));
      expect(get(b.responses[0]!), name).toEqual(want);
    }
  });

  it('the same cells whatever the column order, quoting, or window', async () => {
    const rows = grid();
    const plain = await read(csv(COLUMNS, rows));
    expect(plain.responses).toHaveLength(2 * 2 * 4 * 3);
    // Reversed: model and split, config and its counts no longer neighbours.
    const reversed = await read(
      csv(
        [...COLUMNS].reverse(),
        rows.map((r) => [...r].reverse()),
      ),
    );
    expect(cells(reversed)).toEqual(cells(plain));
    // Every field quoted, then every other row's.
    const quoted = await read(
      csv(
        COLUMNS,
        rows.map((r) => r.map((f) => `"${f}"`).join(',')),
      ),
    );
    expect(cells(quoted)).toEqual(cells(plain));
    const mixed = await read(
      csv(
        COLUMNS,
        rows.map((r, i) => (i % 2 === 0 ? r.map((f) => `"${f}"`).join(',') : r.join(','))),
      ),
    );
    expect(cells(mixed)).toEqual(cells(plain));
    // Only the names quoted, in turn: model, split, config, frame_count, pixel_count, source_tag.
    for (const k of [1, 2, 3, 4, 5, 9]) {
      const some = await read(
        csv(
          COLUMNS,
          rows.map((r, i) => r.map((f, j) => (j === k && i % 3 !== 1 ? `"${f}"` : f)).join(',')),
        ),
      );
      expect(cells(some), COLUMNS[k]).toEqual(cells(plain));
    }
  });

  it('a model or split of the same length as the last one is still read', async () => {
    const b = await read(
      csv(COLUMNS, [
        ['q1', 'M1', 'S1', '8f', '8', '', 'A', 'A', '1', 't', ''],
        ['q1', 'M2', 'S1', '8f', '8', '', 'A', 'A', '1', 't', ''],
        ['q1', 'M2', 'S2', '8f', '8', '', 'A', 'A', '1', 't', ''],
        ['q1', 'M1', 'S2', '8f', '8', '', 'A', 'A', '1', 't', ''],
        ['q1', 'M1', 'S1', '16f', '16', '', 'A', 'A', '1', 't', ''],
      ]),
    );
    expect(b.responses.map((r) => `${r.model}/${r.split}/${r.config}`)).toEqual(['M1/S1/8f', 'M2/S1/8f', 'M2/S2/8f', 'M1/S2/8f', 'M1/S1/16f']);
  });

  it('a quoted model between two rows of the same unquoted one', async () => {
    const b = await read(
      csv(COLUMNS, ['q1,M1,S1,8f,8,,A,A,1,t,', 'q1,"M2",S1,8f,8,,A,A,1,t,', 'q1,M1,S1,16f,16,,A,A,1,t,', 'q2,M1,"S2",8f,8,,A,A,1,t,', 'q2,M1,S1,8f,8,,A,A,1,t,']),
    );
    expect(b.responses.map((r) => `${r.model}/${r.split}/${r.config}`)).toEqual(['M1/S1/8f', 'M2/S1/8f', 'M1/S1/16f', 'M1/S2/8f', 'M1/S1/8f']);
  });

  it('rows of one length in windows of every size: a model or tag that changes at a window is read', async () => {
    // Each row is as long as the next, so a byte offset kept from the last window points into
    // another row of this one, at the same field.
    const rows: string[] = [];
    for (let i = 0; i < 40; i++) rows.push(`q${String(i).padStart(2, '0')},M${Math.floor(i / 3) % 3},S,8f,8,,A,A,1,t${Math.floor(i / 2) % 3},`);
    const p = csv(COLUMNS, rows);
    const want = rows.map((r) => r.split(',')).map((f) => [f[0], f[1], f[9]]);
    for (let window = 20; window <= 260; window += 5) {
      const b = await readPerItemCsv(p, {}, 'per_item.csv', INLINE, window);
      expect(
        b.responses.map((r) => [r.sampleId, r.model, r.sourceTag]),
        `window ${window}`,
      ).toEqual(want);
    }
  });

  it('--model and --split name every row, whatever the file says', async () => {
    const rows = grid().filter((r) => r[1] === 'M1' && r[2] === 'SA');
    const b = await read(csv(COLUMNS, rows), { model: 'Given', split: 'Other' });
    expect(new Set(b.responses.map((r) => `${r.model}/${r.split}`))).toEqual(new Set(['Given/Other']));
    expect(b.responses).toHaveLength(rows.length);
    const onlyModel = await read(csv(COLUMNS, rows), { model: 'Given' });
    expect(new Set(onlyModel.responses.map((r) => `${r.model}/${r.split}`))).toEqual(new Set(['Given/SA']));
    const onlySplit = await read(csv(COLUMNS, rows), { split: 'Other' });
    expect(new Set(onlySplit.responses.map((r) => `${r.model}/${r.split}`))).toEqual(new Set(['M1/Other']));
    // The file's own empty model is no error when --model names it.
    const empty = await read(csv(COLUMNS, [['q1', '', '', '8f', '8', '', 'A', 'A', '1', 't', '']]), { model: 'Given', split: 'Other' });
    expect(cells(empty)).toEqual([['Given', 'Other', 'q1', '8f', 'A', 'A', true, null, 't', null]]);
  });

  it('a config seen again with other counts is refused, whichever count differs and however they are written', async () => {
    const first = ['q1', 'M', 'S', '16f_151k', '16', '150528', 'A', 'A', '1', 't', ''];
    const again = (fc: string, pc: string): string => csv(COLUMNS, [first, ['q2', 'M', 'S', '16f_151k', fc, pc, 'A', 'A', '1', 't', '']]);
    await refused(again('16', '150529'), { line: 3, field: 'pixel_count', reason: 'config 16f_151k had pixel_count 150528 at line 2, here 150529' });
    await refused(again('16', ''), { line: 3, field: 'pixel_count', reason: 'config 16f_151k had pixel_count 150528 at line 2, here null' });
    await refused(again('"16"', '"150529"'), { line: 3, field: 'pixel_count', reason: 'config 16f_151k had pixel_count 150528 at line 2, here 150529' });
    await refused(again('17', '150528'), { line: 3, field: 'frame_count', reason: 'config 16f_151k means 16 frames but frame_count is 17' });
    // Quoted counts that agree are the same config.
    const b = await read(csv(COLUMNS, [first, ['q2', 'M', 'S', '"16f_151k"', '"16"', '"150528"', 'A', 'A', '1', 't', '']]));
    expect(b.configs).toHaveLength(1);
  });

  it("a column's source tag: repeated, changed to one of the same length, empty, quoted", async () => {
    const row = (q: string, config: string, tag: string): string[] => [q, 'M', 'S', config, config === '8f' ? '8' : '16', '', 'A', 'A', '1', tag, ''];
    const b = await read(
      csv(COLUMNS, [
        row('q1', '8f', 'aa'),
        row('q2', '8f', 'aa'),
        row('q3', '8f', 'ab'),
        row('q4', '8f', '"ab"'),
        row('q5', '8f', '"ba"'),
        row('q6', '8f', 'ba'),
        row('q7', '8f', ''),
        row('q8', '8f', 'ba'),
        row('q1', '16f', 'ba'),
        row('q2', '16f', 'aa'),
        row('q3', '16f', '""'),
      ]),
    );
    expect(b.responses.map((r) => r.sourceTag)).toEqual(['aa', 'aa', 'ab', 'ab', 'ba', 'ba', null, 'ba', 'ba', 'aa', null]);
  });

  it('a column of more cells than its first arrays hold keeps every optional value', async () => {
    const header = [...COLUMNS, 'score', 'confidence', 'margin', 'latency_s', 'frame_indices'];
    const rows = Array.from({ length: 40 }, (_, i) => [
      `q${i}`,
      'M',
      'S',
      '8f',
      '8',
      '',
      'A',
      'A',
      '1',
      't',
      '',
      `${i / 100}`,
      `${i / 200}`,
      `${i / 400}`,
      `${i}`,
      `${i} ${i + 1}`,
    ]);
    const b = await read(csv(header, rows));
    expect(b.responses.map((r) => [r.score, r.confidence, r.margin, r.latencyMs, r.frameIndices])).toEqual(rows.map((_, i) => [i / 100, i / 200, i / 400, i * 1000, [i, i + 1]]));
  });

  it("a column's first source tag of one character, the file's first byte", async () => {
    // The file starts with `s` (sample_id): a tag `s` is still a tag of its own.
    const b = await read(
      csv(COLUMNS, [
        ['q1', 'M', 'S', '8f', '8', '', 'A', 'A', '1', 's', ''],
        ['q2', 'M', 'S', '8f', '8', '', 'A', 'A', '1', 's', ''],
      ]),
    );
    expect(b.responses.map((r) => r.sourceTag)).toEqual(['s', 's']);
  });

  it('header names are read trimmed of spaces', async () => {
    const b = await read(
      csv(
        COLUMNS.map((c, i) => (i % 2 === 0 ? ` ${c}` : `${c}  `)),
        [['q1', 'M', 'S', '8f', '8', '', 'A', 'A', '1', 't', '']],
      ),
    );
    expect(cells(b)).toEqual([['M', 'S', 'q1', '8f', 'A', 'A', true, null, 't', null]]);
  });

  it.skipIf(!existsSync('/proc/self/fd'))('closes the file however the read ends', async () => {
    const open = (): number => readdirSync('/proc/self/fd').length;
    const good = csv(COLUMNS, [['q1', 'M', 'S', '8f', '8', '', 'A', 'A', '1', 't', '']]);
    const bad = csv(COLUMNS, [['q1', 'M', 'S', '8f', '8', '', 'Z', 'A', '1', 't', '']]);
    const before = open();
    for (let i = 0; i < 10; i++) {
      await readPerItemCsv(good, {}, 'per_item.csv', INLINE);
      await readPerItemCsv(bad, {}, 'per_item.csv', INLINE).catch(() => undefined);
    }
    expect(open()).toBe(before);
  });

  it('items past the first arrays, and configs met out of order, keep their cells', async () => {
    const rows: string[][] = [];
    for (let i = 0; i < 600; i++) {
      const configs = i % 2 === 0 ? ['32f', '8f', '16f'] : ['16f', '32f', '8f'];
      for (const c of configs) rows.push([`q${i}`, 'M', 'S', c, c.replace('f', ''), '', 'ABCDEFGH'[i % 8]!, 'ABCDEFGH'[i % 8]!, '1', 't', '']);
    }
    const b = await read(csv(COLUMNS, rows));
    expect(b.responses).toHaveLength(1800);
    expect(b.items).toHaveLength(600);
    expect(b.items.at(-1)).toMatchObject({ sampleId: 'q599', answer: 'H' });
    expect(cells(b).slice(-3)).toEqual(['16f', '32f', '8f'].map((c) => ['M', 'S', 'q599', c, 'H', 'H', true, null, 't', null]));
  });
});

/**
 * VLMEvalKit's dialogue-style rows (docs/formats.md "VLMEvalKit", multi-turn datasets): a
 * `TYPE == 'MT'` dataset (vlmeval/dataset/image_mt.py, MMDU) holds a whole dialogue per row, and
 * inference_mt.py writes the model's answers as one list per row; its TSV holds the three lists as
 * the Python literals pandas writes (mmdu.py's `eval(line['question'])` reads them back), its JSON
 * the prediction as a JSON list. Each turn is an item of its own with its earlier turns as the
 * history and Token-F1 against the turn's reference; turns that do not line up are refused as
 * file:line: field: reason and change nothing. (Before, the whole list literal was one free-text
 * answer scored against the whole list of references.)
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { detectFormat, readImport } from '../../../electron/importers/index';
import { openProject } from '../../../electron/store/project';
import { f1Independent } from '../../independent-f1';
import { flipbook } from '../cli/cli-helpers';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

/** Python's repr of a list of str, as pandas writes a list cell (str(list)). */
function pyList(xs: string[]): string {
  const one = (s: string): string => {
    const q = s.includes("'") && !s.includes('"') ? '"' : "'";
    const body = s.replaceAll('\\', '\\\\').replaceAll('\n', '\\n').replaceAll(q, `\\${q}`);
    return `${q}${body}${q}`;
  };
  return `[${xs.map(one).join(', ')}]`;
}
/** A TSV field as VLMEvalKit's dump_tsv writes it: csv.QUOTE_ALL, quotes doubled. */
const quoted = (v: string): string => `"${v.replaceAll('"', '""')}"`;

interface Dialogue {
  index: number;
  questions: string[];
  answers: string[];
  /** Per config: the model's answer at each turn. */
  predictions: Record<string, string[]>;
}

const DIALOGUES: Dialogue[] = [
  {
    index: 0,
    questions: ['<ImageHere>What is parked in front of the wall?', "And what colour is the car's roof?", 'Is anyone inside it?'],
    answers: ['A red car is parked in front of a brick wall.', 'The roof is red as well.', 'No, the car is empty.'],
    predictions: {
      '8f': ['A red car in front of a wall.', "It's red.", 'Yes, a man sits inside.'],
      '16f': ['A red car is parked by a brick wall.', 'The roof is red.', 'No, it is empty.'],
    },
  },
  {
    index: 1,
    questions: ['<ImageHere><ImageHere>What changed between the two pictures?'],
    answers: ['The dog moved from the sofa to the floor.'],
    predictions: { '8f': ['The dog moved.'], '16f': ['The dog moved from the sofa onto the floor.'] },
  },
];

function mtTsv(dir: string, config: string, dialogues = DIALOGUES): string {
  const head = ['index', 'question', 'answer', 'image_path', 'prediction'].map(quoted).join('\t');
  const rows = dialogues.map((d) =>
    [String(d.index), pyList(d.questions), pyList(d.answers), pyList(d.questions.map((_, k) => `${d.index}_${k}.jpg`).slice(0, 1)), pyList(d.predictions[config]!)]
      .map(quoted)
      .join('\t'),
  );
  return scratch.write(`${dir}/GPT-4o_MMDU.tsv`, [head, ...rows].join('\n') + '\n');
}

describe('VLMEvalKit multi-turn rows', () => {
  it('one item per turn with its earlier turns as history; each turn scored by Token-F1 against its reference', async () => {
    const project = openProject(scratch.path('mt.flipbook'), { create: true });
    try {
      for (const config of ['8f', '16f']) {
        const p = mtTsv(`tsv-${config}`, config);
        expect(await detectFormat(p)).toBe('vlmevalkit');
        project.applyImports(await readImport(p, { config }));
      }
      const [g] = project.listGrids();
      expect(g).toMatchObject({ model: 'GPT-4o', split: 'MMDU', kind: 'open', score: 'token_f1', nItems: 4 });
      for (const d of DIALOGUES) {
        d.questions.forEach((q, k) => {
          const item = project.getItem('MMDU', `${d.index}_${k}`)!;
          expect(item).toMatchObject({ kind: 'open', question: q, references: [d.answers[k]] });
          const history = d.questions.slice(0, k).map((question, j) => ({ question, answer: d.answers[j] }));
          expect(item.context?.history ?? []).toEqual(history);
          const cells = project.responsesForItem('GPT-4o', 'MMDU', `${d.index}_${k}`);
          expect(cells.map((c) => c.config)).toEqual(['8f', '16f']);
          for (const c of cells) {
            expect(c.pred).toBe(d.predictions[c.config]![k]);
            expect(c.protocolNote).toBe('score: token_f1');
            expect(Math.abs(c.score! - f1Independent(d.predictions[c.config]![k]!, [d.answers[k]!]))).toBeLessThan(1e-12);
          }
        });
      }
    } finally {
      project.close();
    }
  });

  it('the JSON predictions (prediction a JSON list) give the same items and cells as the TSV', async () => {
    const tsv = (await readImport(mtTsv('same-tsv', '8f'), { config: '8f' }))[0]!;
    const recs = DIALOGUES.map((d) => ({
      index: d.index,
      question: pyList(d.questions),
      answer: pyList(d.answers),
      image_path: pyList([`${d.index}_0.jpg`]),
      prediction: d.predictions['8f'],
    }));
    const json = (await readImport(scratch.write('same-json/GPT-4o_MMDU.json', JSON.stringify(recs, null, 4)), { config: '8f' }))[0]!;
    const cells = (b: typeof tsv) => b.responses.map((r) => [r.sampleId, r.pred, r.score]);
    expect(cells(json)).toEqual(cells(tsv));
    expect(json.items.map((x) => [x.sampleId, x.question, x.references, x.context])).toEqual(tsv.items.map((x) => [x.sampleId, x.question, x.references, x.context]));
  });

  it('turns that do not line up, and a file mixing multi- and single-turn rows, are refused with file:line: field: reason', async () => {
    const short = DIALOGUES.map((d, i) => (i === 0 ? { ...d, predictions: { '8f': d.predictions['8f']!.slice(0, 2) } } : d));
    await expectImportError(readImport(mtTsv('short', '8f', short), { config: '8f' }), {
      file: 'GPT-4o_MMDU.tsv',
      line: 2,
      field: 'prediction',
      reason: /2 answer\(s\) for the 3 turn\(s\)/,
    });
    const refs = DIALOGUES.map((d, i) => (i === 1 ? { ...d, answers: [...d.answers, 'an extra reference'] } : d));
    await expectImportError(readImport(mtTsv('refs', '8f', refs), { config: '8f' }), {
      file: 'GPT-4o_MMDU.tsv',
      line: 3,
      field: 'answer',
      reason: /2 reference\(s\) for the 1 turn\(s\)/,
    });
    const good = readFileSync(mtTsv('mixed', '8f'), 'utf8');
    const mixed = scratch.write('mixed/GPT-4o_MMDU.tsv', `${good}${['2', 'What is this?', 'A cat.', '', 'A cat.'].map(quoted).join('\t')}\n`);
    await expectImportError(readImport(mixed, { config: '8f' }), {
      file: 'GPT-4o_MMDU.tsv',
      line: 4,
      field: 'question',
      reason: /single-turn row in a file whose rows are multi-turn/,
    });
    const listForText = scratch.write('list/GPT-4o_MMDU.json', JSON.stringify([{ index: 0, question: 'What is this?', answer: 'A cat.', prediction: ['A cat.'] }], null, 4));
    await expectImportError(readImport(listForText, { config: '8f' }), { file: 'GPT-4o_MMDU.json', line: 2, field: 'prediction', reason: /got a list/ });
  });

  it('flipbook import: a refused multi-turn file leaves the project file unchanged', () => {
    const project = scratch.path('cli.flipbook');
    const ok = flipbook('import', mtTsv('cli-good', '16f'), '--config', '16f', '--project', project);
    expect(ok.code, ok.stderr).toBe(0);
    const bytes = readFileSync(project);
    const short = DIALOGUES.map((d, i) => (i === 0 ? { ...d, predictions: { '8f': d.predictions['8f']!.slice(0, 1) } } : d));
    const r = flipbook('import', mtTsv('cli-bad', '8f', short), '--config', '8f', '--project', project);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/GPT-4o_MMDU\.tsv:2: prediction: 1 answer\(s\) for the 3 turn\(s\)/);
    expect(readFileSync(project).equals(bytes)).toBe(true);
  });
});

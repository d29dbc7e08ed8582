/**
 * The AVSD reader (docs/formats.md "AVSD") on files in the challenge's own layouts
 * (test/avsd-run.ts): a DSTC7 test set, its multi-reference file and results at three budgets,
 * imported through the path `flipbook import` takes. Each item's score equals an independent
 * Token-F1 against the best reference; each item carries its dialogue history; damaged results
 * are refused as file:line: field: reason and the project is left as it was.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectFormat } from '../../../electron/importers/index';
import { applyImportFiles, readImportFiles } from '../../../electron/jobs/import-files';
import { openProject } from '../../../electron/store/project';
import { AVSD_MODEL, expectedAvsd, writeAvsdRun, type AvsdRun } from '../../avsd-run';
import { f1Independent } from '../../independent-f1';
import { expectImportError, lineOf, Scratch } from './helpers';
import { flipbook } from '../cli/cli-helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const readAll = (run: AvsdRun, results = run.results.map((r) => r.path)) => readImportFiles([run.reference, run.multiref, ...results], {});

describe('AVSD: a DSTC7 test set, its multi-references and three budgets', () => {
  let run: AvsdRun;
  beforeAll(() => {
    run = writeAvsdRun(scratch.path('avsd'));
  });

  it('detects the three files as avsd', async () => {
    for (const p of [run.reference, run.multiref, run.results[0]!.path]) expect(await detectFormat(p)).toBe('avsd');
  });

  it('one item per (dialog, evaluated turn) with its history; each score is Token-F1 against the best reference', async () => {
    const want = expectedAvsd(run);
    const file = scratch.path('ok.flipbook');
    const p = openProject(file, { create: true });
    try {
      const read = await readAll(run);
      applyImportFiles(p, read, {});
      const [g] = p.listGrids();
      expect(g).toMatchObject({ model: AVSD_MODEL, split: 'AVSD', kind: 'open', score: 'token_f1', configs: [{ key: '8f' }, { key: '16f' }, { key: '32f' }] });
      expect(g!.nItems).toBe(want.length);
      for (const x of want) {
        const item = p.getItem('AVSD', x.sampleId)!;
        expect(item).toMatchObject({ kind: 'open', question: x.question, references: x.references, videoFile: `${x.sampleId.split('_')[0]}.mp4` });
        expect(item.context!.history).toEqual(x.history);
        expect(item.context!.caption).toMatch(/^a person /);
        const cells = p.responsesForItem(AVSD_MODEL, 'AVSD', x.sampleId);
        expect(cells.map((c) => c.config)).toEqual(['8f', '16f', '32f']);
        cells.forEach((c, j) => {
          expect(c.pred).toBe(x.texts[j]);
          expect(c.protocolNote).toBe('score: token_f1');
          expect(Math.abs(c.score! - x.scores[j]!)).toBeLessThan(1e-12);
        });
      }
      // Several references are kept and the best one counts: somewhere another than the first wins.
      expect(want.some((x) => x.references.length > 1 && x.texts.some((t, j) => x.scores[j]! > f1Independent(t, x.references.slice(0, 1))))).toBe(true);
    } finally {
      p.close();
    }
  });

  describe('damaged results are refused with file:line: field: reason and change nothing', () => {
    /** The 8-frame result rewritten; its name keeps model and budget. */
    const damaged = (name: string, edit: (d: { dialogs: { image_id: string; dialog: { question: string; answer: string }[] }[] }) => void): string => {
      const d = JSON.parse(readFileSync(run.results[0]!.path, 'utf8')) as { dialogs: { image_id: string; dialog: { question: string; answer: string }[] }[] };
      edit(d);
      const p = path.join(scratch.path(name), path.basename(run.results[0]!.path));
      scratch.write(`${name}/${path.basename(run.results[0]!.path)}`, JSON.stringify(d, null, 4));
      return p;
    };
    it('a missing dialog', async () => {
      const f = damaged('missing', (d) => d.dialogs.splice(2, 1));
      await expectImportError(readAll(run, [f]), { file: path.basename(f), line: 1, field: 'dialogs', reason: /1 of the 5 dialogs of test_set4DSTC7-AVSD\.json missing: SYN02/ });
    });
    it('a turn count that differs', async () => {
      const f = damaged('turns', (d) => d.dialogs[1]!.dialog.splice(0, 1));
      await expectImportError(readAll(run, [f]), {
        file: path.basename(f),
        line: lineOf(f, '"image_id": "SYN01"') - 1,
        field: 'dialogs[1].dialog',
        reason: /3 turn\(s\); the reference dialog SYN01 .* has 4, of which turn\(s\) 3 are evaluated/,
      });
    });
    it('an empty generated answer', async () => {
      const f = damaged('empty', (d) => (d.dialogs[3]!.dialog.at(-1)!.answer = '  '));
      const turns = JSON.parse(readFileSync(run.reference, 'utf8')).dialogs[3].dialog.length as number;
      await expectImportError(readAll(run, [f]), {
        file: path.basename(f),
        line: lineOf(f, '"answer": "  "') - 2,
        field: `dialogs[3].dialog[${turns - 1}].answer`,
        reason: /empty generated answer at turn \d of SYN03/,
      });
    });
    it('a dialog the reference lacks, another question, an undisclosed answer, a missing multi-reference file', async () => {
      const stranger = damaged('stranger', (d) => (d.dialogs[0]!.image_id = 'NOPE1'));
      await expectImportError(readAll(run, [stranger]), {
        file: path.basename(stranger),
        line: lineOf(stranger, '"image_id": "NOPE1"') - 1,
        field: 'dialogs[0].image_id',
        reason: /dialog NOPE1 is not in the reference/,
      });
      const question = damaged('question', (d) => (d.dialogs[0]!.dialog.at(-1)!.question = 'something else ?'));
      await expectImportError(readAll(run, [question]), {
        file: path.basename(question),
        line: lineOf(question, 'something else ?') - 1,
        field: 'dialogs[0].dialog[2].question',
        reason: /is not the reference's question at turn 2 of SYN00/,
      });
      const undisclosed = damaged('undisclosed', (d) => (d.dialogs[0]!.dialog.at(-1)!.answer = '__UNDISCLOSED__'));
      await expectImportError(readAll(run, [undisclosed]), {
        file: path.basename(undisclosed),
        line: lineOf(undisclosed, '__UNDISCLOSED__') - 2,
        field: 'dialogs[0].dialog[2].answer',
        reason: /still __UNDISCLOSED__/,
      });
      await expectImportError(readImportFiles([run.reference, run.results[0]!.path], {}), {
        file: path.basename(run.results[0]!.path),
        line: lineOf(run.results[0]!.path, '"answer"', 2) - 2,
        field: 'dialogs[0].dialog[2].answer',
        reason: /no reference answer .*multi-reference file/,
      });
      await expectImportError(readImportFiles([run.results[0]!.path], {}), {
        file: path.basename(run.results[0]!.path),
        line: 1,
        field: 'dialogs',
        reason: /reference dialog file/,
      });
    });

    /** The three mismatches a result can have with its reference, each in a file of its own. */
    const mismatches = (): { what: string; file: string; where: string; reason: string }[] => [
      {
        what: 'a missing dialog',
        file: damaged('cli-missing', (d) => d.dialogs.splice(2, 1)),
        where: ':1: dialogs: ',
        reason: '1 of the 5 dialogs of test_set4DSTC7-AVSD\\.json missing: SYN02',
      },
      {
        what: 'a turn count that differs',
        file: damaged('cli-turns', (d) => d.dialogs[1]!.dialog.splice(0, 1)),
        where: ':\\d+: dialogs\\[1\\]\\.dialog: ',
        reason: '3 turn\\(s\\); the reference dialog SYN01',
      },
      {
        what: 'an empty generated answer',
        file: damaged('cli-empty', (d) => (d.dialogs[4]!.dialog.at(-1)!.answer = '')),
        where: ':\\d+: dialogs\\[4\\]\\.dialog\\[\\d\\]\\.answer: ',
        reason: 'empty generated answer',
      },
    ];

    it('flipbook import (the real CLI): each mismatch is refused naming file, line and field, and the project file is unchanged', () => {
      const project = scratch.path('cli.flipbook');
      const ok = flipbook('import', run.reference, run.multiref, run.results[1]!.path, '--project', project);
      expect(ok.code, ok.stderr).toBe(0);
      const bytes = readFileSync(project);
      for (const { what, file, where, reason } of mismatches()) {
        const r = flipbook('import', run.reference, run.multiref, run.results[2]!.path, file, '--project', project);
        expect(r.code, what).not.toBe(0);
        expect(r.stderr, what).toMatch(new RegExp(path.basename(file).replace(/[.]/g, '\\.') + where + reason));
        expect(readFileSync(project).equals(bytes), what).toBe(true);
      }
    });

    it('in one transaction: each refused mismatch leaves the project as it was', async () => {
      const file = scratch.path('unchanged.flipbook');
      const p = openProject(file, { create: true });
      try {
        applyImportFiles(p, await readImportFiles([run.reference, run.multiref, run.results[1]!.path], {}), {});
        const state = () => ({ grids: JSON.stringify(p.listGrids()), items: p.countItems(), cells: JSON.stringify([...p.iterateResponses()]) });
        const before = state();
        for (const { what, file, reason } of mismatches()) {
          // The good 32-frame result comes first: its rows must not land either.
          await expect(
            readAll(run, [run.results[2]!.path, file]).then((r) => applyImportFiles(p, r, {})),
            what,
          ).rejects.toThrow(new RegExp(reason));
          expect(state(), what).toEqual(before);
        }
      } finally {
        p.close();
      }
    });
  });

  it('a reference alone gives the items with their context; a prototype set without __UNDISCLOSED__ evaluates every turn', async () => {
    const d = JSON.parse(readFileSync(run.reference, 'utf8')) as { dialogs: { image_id: string; dialog: { question: string; answer: string }[] }[] };
    for (const x of d.dialogs) x.dialog.at(-1)!.answer = 'it is on the table';
    const proto = scratch.write('proto/test_set.json', JSON.stringify(d, null, 4));
    const [b] = (await readImportFiles([proto], {}))[0]!.batches;
    expect(b!.items.length).toBe(d.dialogs.reduce((s, x) => s + x.dialog.length, 0));
    const second = b!.items.find((x) => x.sampleId === 'SYN00_1')!;
    expect(second).toMatchObject({ question: d.dialogs[0]!.dialog[1]!.question, references: [d.dialogs[0]!.dialog[1]!.answer] });
    expect(second.context!.history).toEqual([d.dialogs[0]!.dialog[0]]);
    writeFileSync(scratch.path('proto/bad.json'), '{"dialogs": [{"image_id": "X", "caption": "c", "dialog": []}]}\n');
    await expectImportError(readImportFiles([scratch.path('proto/bad.json')], {}), { file: 'bad.json', line: 1, field: 'dialogs[0].dialog', reason: /no turns/ });
  });
});

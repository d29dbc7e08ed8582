/**
 * The AVSD reader on small hand-written files (docs/formats.md "AVSD"): which of the three files
 * a document is, what a reference and a multi-reference file hold, and every refusal of either,
 * each naming the file, line and field. test/electron/importers/avsd.test.ts imports a whole
 * generated run; this file checks the rules one at a time.
 */
import { utimesSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { avsdRole, readAvsd } from '../../../electron/importers/avsd';
import { Scratch, expectImportError, lineOf } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

interface Turn {
  question: string;
  answer: string;
}
const turn = (q: string, a: string): Turn => ({ question: q, answer: a });
const U = '__UNDISCLOSED__';

/** A reference dialog file: two dialogs, the test set's last turn undisclosed. */
const REFERENCE = {
  dialogs: [
    { image_id: 'V1', caption: 'a man cooks', summary: 'he cooks eggs', dialog: [turn('who is there ?', 'a man'), turn('what does he do ?', U)] },
    { image_id: 'V2', caption: 'a woman reads', dialog: [turn('is it day ?', 'yes'), turn('is she sitting ?', ' __UNDISCLOSED__ ')] },
  ],
};
/** The multi-reference captions of both evaluated turns (ids as numbers and as text). */
const MULTIREF = {
  images: [
    { name: 'V1_1', id: 1 },
    { name: 'V2_1', id: '2' },
  ],
  annotations: [
    { image_id: 1, caption: 'he fries eggs' },
    { image_id: '1', caption: 'he is cooking' },
    { image_id: 2, caption: 'yes she sits' },
  ],
};
const result = (a1: string, a2: string, whole = true) => ({
  dialogs: [
    { image_id: 'V1', dialog: whole ? [turn('who is there ?', 'a man'), turn('what does he do ?', a1)] : [turn('what does he do ?', a1)] },
    { image_id: 'V2', dialog: whole ? [turn('is it day ?', 'yes'), turn('is she sitting ?', a2)] : [turn('is she sitting ?', a2)] },
  ],
});

let n = 0;
/** Writes the documents into a fresh folder under these names; returns their paths. */
function files(docs: Record<string, unknown>, pretty = true): Record<string, string> {
  const dir = `set${++n}`;
  const out: Record<string, string> = {};
  for (const [name, doc] of Object.entries(docs)) out[name] = scratch.write(`${dir}/${name}`, typeof doc === 'string' ? doc : JSON.stringify(doc, null, pretty ? 2 : undefined));
  return out;
}
const REF = 'test_set4DSTC7-AVSD.json';
const MR = 'test_set4DSTC7-AVSD_multiref.json';
const RES = 'Toy-7B_AVSD_8frame.json';

describe('avsdRole', () => {
  it('tells the three files apart by content, and nothing else for one', () => {
    expect(avsdRole(REFERENCE)).toBe('reference');
    expect(avsdRole(MULTIREF)).toBe('multiref');
    expect(avsdRole(result('x', 'y'))).toBe('result');
    // A reference is told by a caption or a summary on any dialog, not only the first.
    expect(
      avsdRole({
        dialogs: [
          { image_id: 'a', dialog: [] },
          { image_id: 'b', summary: 's', dialog: [] },
        ],
      }),
    ).toBe('reference');
    expect(avsdRole({ dialogs: [{ image_id: 'a', dialog: [], caption: null }] })).toBe('reference');
    // The first record among the dialogs decides whether it is AVSD at all.
    expect(avsdRole({ dialogs: [7, null, { image_id: 'a', dialog: [] }] })).toBe('result');
    for (const v of [
      null,
      'dialogs',
      [REFERENCE],
      {},
      { images: [] },
      { annotations: [] },
      { images: {}, annotations: [] },
      { dialogs: {} },
      { dialogs: [] },
      { dialogs: [1, 2] },
      { dialogs: [[{ image_id: 'a', dialog: [] }]] },
      { dialogs: [{ dialog: [] }] },
      { dialogs: [{ image_id: 'a', dialog: {} }] },
      { dialogs: [{ image_id: 'a' }] },
    ]) {
      expect(avsdRole(v), JSON.stringify(v)).toBeNull();
    }
  });
});

describe('a reference and a multi-reference file', () => {
  it('give one item per evaluated turn, with its history, caption and summary, and the multi-references as its references', async () => {
    const f = files({ [REF]: REFERENCE, [MR]: MULTIREF });
    const b = await readAvsd(f[REF]!, { companions: [f[MR]!] });
    expect(b.run).toMatchObject({ format: 'avsd', toolkit: 'avsd', sourcePath: f[REF], modelArgs: null });
    expect(b.run.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(b.items).toEqual([
      {
        split: 'AVSD',
        sampleId: 'V1_1',
        question: 'what does he do ?',
        options: null,
        answer: null,
        references: ['he fries eggs', 'he is cooking'],
        videoId: 'V1',
        videoFile: 'V1.mp4',
        kind: 'open',
        context: { history: [{ question: 'who is there ?', answer: 'a man' }], caption: 'a man cooks', summary: 'he cooks eggs', prompt: null },
      },
      {
        split: 'AVSD',
        sampleId: 'V2_1',
        question: 'is she sitting ?',
        options: null,
        answer: null,
        references: ['yes she sits'],
        videoId: 'V2',
        videoFile: 'V2.mp4',
        kind: 'open',
        context: { history: [{ question: 'is it day ?', answer: 'yes' }], caption: 'a woman reads', summary: null, prompt: null },
      },
    ]);
    expect(b.responses).toEqual([]);
    // The multi-reference file on its own gives no items; --split names the split.
    const m = await readAvsd(f[MR]!, { companions: [f[REF]!] });
    expect(m.run.format).toBe('avsd-multiref');
    expect(m.items).toEqual([]);
    const s = await readAvsd(f[REF]!, { companions: [f[MR]!], split: 'AVSD_test' });
    expect(s.items.map((i) => i.split)).toEqual(['AVSD_test', 'AVSD_test']);
  });

  it('without a multi-reference file, an undisclosed turn has no reference and a disclosed one its own answer', async () => {
    const f = files({ [REF]: REFERENCE });
    const b = await readAvsd(f[REF]!);
    expect(b.items.map((i) => [i.sampleId, i.references])).toEqual([
      ['V1_1', null],
      ['V2_1', null],
    ]);
    // A prototype set (no turn undisclosed): every turn is evaluated, its reference its own answer.
    const g = files({ [REF]: { dialogs: [{ image_id: 'P', caption: 'c', dialog: [turn('q0', 'a0'), turn('q1', 'a1')] }] } });
    const p = await readAvsd(g[REF]!);
    expect(p.items.map((i) => [i.sampleId, i.references, i.context!.history.length])).toEqual([
      ['P_0', ['a0'], 0],
      ['P_1', ['a1'], 1],
    ]);
  });

  it('refuse a dialog given twice, a dialog with no turns and a turn with no answer, naming the line and field', async () => {
    const twice = files({ [REF]: { dialogs: [REFERENCE.dialogs[0], REFERENCE.dialogs[1], REFERENCE.dialogs[0]] } });
    await expectImportError(readAvsd(twice[REF]!), {
      file: REF,
      line: lineOf(twice[REF]!, '"image_id": "V1"', 1) - 1,
      field: 'dialogs[2].image_id',
      reason: new RegExp(`^dialog V1 is also at ${twice[REF]!.replace(/[.]/g, '\\.')}:3: one dialog per video in a reference set$`),
    });
    const empty = files({ [REF]: { dialogs: [{ image_id: 'E', caption: 'c', dialog: [] }] } });
    await expectImportError(readAvsd(empty[REF]!), { file: REF, line: 3, field: 'dialogs[0].dialog', reason: /^dialog E has no turns$/ });
    const noAnswer = files({ [REF]: { dialogs: [{ image_id: 'E', caption: 'c', dialog: [{ question: 'q' }] }] } });
    await expectImportError(readAvsd(noAnswer[REF]!), { file: REF, line: 3, field: 'dialogs[0].dialog.0.answer' });
    const noQuestion = files({ [REF]: { dialogs: [{ image_id: 'E', caption: 'c', dialog: [{ answer: 'a' }] }] } });
    await expectImportError(readAvsd(noQuestion[REF]!), { file: REF, line: 3, field: 'dialogs[0].dialog.0.question' });
    const noId = files({ [REF]: { dialogs: [{ image_id: '', caption: 'c', dialog: [turn('q', 'a')] }] } });
    await expectImportError(readAvsd(noId[REF]!), { file: REF, line: 3, field: 'dialogs[0].image_id' });
  });

  it('refuse an image listed twice, a caption of no image, and a multi-reference of no evaluated turn', async () => {
    const twice = files({ [REF]: REFERENCE, [MR]: { ...MULTIREF, images: [...MULTIREF.images, { name: 'V1_1', id: '1' }] } });
    await expectImportError(readAvsd(twice[REF]!, { companions: [twice[MR]!] }), {
      file: MR,
      line: lineOf(twice[MR]!, '"id": "1"') - 2,
      field: 'images.id',
      reason: /^image id 1 is listed twice$/,
    });
    const stray = files({ [REF]: REFERENCE, [MR]: { ...MULTIREF, annotations: [...MULTIREF.annotations, { image_id: 9, caption: 'x' }] } });
    await expectImportError(readAvsd(stray[REF]!, { companions: [stray[MR]!] }), {
      file: MR,
      line: lineOf(stray[MR]!, '"image_id": 9') - 1,
      field: 'annotations.image_id',
      reason: /^no image with id 9$/,
    });
    const noCaption = files({ [REF]: REFERENCE, [MR]: { ...MULTIREF, annotations: [{ image_id: 1 }] } });
    await expectImportError(readAvsd(noCaption[REF]!, { companions: [noCaption[MR]!] }), { file: MR, line: 1, field: 'annotations.0.caption' });
    // A turn that is not evaluated (V1's turn 0 is answered), a dialog not in the reference, a name with no turn.
    for (const name of ['V1_0', 'V9_1', 'V1', 'V1_1x', 'xV1_1_']) {
      const f = files({ [REF]: REFERENCE, [MR]: { images: [...MULTIREF.images, { name, id: 3 }], annotations: [{ image_id: 3, caption: 'c' }] } });
      await expectImportError(readAvsd(f[REF]!, { companions: [f[MR]!] }), {
        file: MR,
        line: 0,
        field: 'images.name',
        reason: new RegExp(`^"${name}" is no evaluated turn of the reference dialogs \\(${REF.replace(/[.]/g, '\\.')}\\)$`),
      });
    }
    const alone = files({ [MR]: MULTIREF });
    await expectImportError(readAvsd(alone[MR]!), {
      file: MR,
      line: 0,
      field: '',
      reason: /^a multi-reference file needs the reference dialog file \(e\.g\. test_set4DSTC7-AVSD\.json\) in the same import/,
    });
  });

  it('refuse a JSON document that is none of the three', async () => {
    const f = files({ 'other.json': { dialogs: [{ id: 1 }] } });
    await expectImportError(readAvsd(f['other.json']!), {
      file: 'other.json',
      line: 1,
      field: 'dialogs',
      reason: /^not an AVSD file: expected \{dialogs: \[\{image_id, dialog: \[\{question, answer\}\]\}\]\} or the multi-reference \{images, annotations\}$/,
    });
  });
});

describe('a result', () => {
  it('is scored against the multi-references, the whole dialog or only its evaluated turns, model and budget from its name', async () => {
    const f = files({ [REF]: REFERENCE, [MR]: MULTIREF, [RES]: result('he fries eggs', 'no'), 'Toy-7B_AVSD_16frame.json': result('eggs', 'yes she sits', false) });
    const a = await readAvsd(f[RES]!, { companions: [f[REF]!, f[MR]!] });
    expect(a.run.format).toBe('avsd');
    expect(a.configs.map((c) => c.key)).toEqual(['8f']);
    expect(a.responses.map((r) => [r.model, r.split, r.sampleId, r.config, r.pred, r.score, r.sourceTag])).toEqual([
      ['Toy-7B', 'AVSD', 'V1_1', '8f', 'he fries eggs', 1, 'avsd-result'],
      ['Toy-7B', 'AVSD', 'V2_1', '8f', 'no', 0, 'avsd-result'],
    ]);
    expect(a.items.map((i) => i.sampleId)).toEqual(['V1_1', 'V2_1']);
    const b = await readAvsd(f['Toy-7B_AVSD_16frame.json']!, { companions: [f[REF]!, f[MR]!] });
    expect(b.responses.map((r) => [r.sampleId, r.config, r.pred, r.score])).toEqual([
      ['V1_1', '16f', 'eggs', 0.5],
      ['V2_1', '16f', 'yes she sits', 1],
    ]);
    // --model and --config win over the name; the reference may come as --ground-truth.
    const c = await readAvsd(f[RES]!, { groundTruth: f[REF]!, companions: [f[MR]!], model: 'Other', config: '8f' });
    expect(c.responses.map((r) => [r.model, r.config])).toEqual([
      ['Other', '8f'],
      ['Other', '8f'],
    ]);
  });

  it('warns when the model is a guess from a name with an unknown dataset part, not when --model names it', async () => {
    const f = files({ [REF]: REFERENCE, [MR]: MULTIREF, 'Foo_Bar_Baz_8frame.json': result('a', 'b') });
    const a = await readAvsd(f['Foo_Bar_Baz_8frame.json']!, { companions: [f[REF]!, f[MR]!] });
    expect(a.responses[0]!.model).toBe('Foo');
    expect(a.warnings.filter((w) => w.includes('first "_" part'))).toHaveLength(1);
    const b = await readAvsd(f['Foo_Bar_Baz_8frame.json']!, { companions: [f[REF]!, f[MR]!], model: 'Foo_Bar' });
    expect(b.warnings.filter((w) => w.includes('first "_" part'))).toEqual([]);
    // The budget's fps, when the name gives one, is the config's.
    const c = files({ [REF]: REFERENCE, [MR]: MULTIREF, 'Toy-7B_AVSD_2fps.json': result('a', 'b') });
    const d = await readAvsd(c['Toy-7B_AVSD_2fps.json']!, { companions: [c[REF]!, c[MR]!], config: '8f' });
    expect(d.configs).toEqual([expect.objectContaining({ key: '8f', toolkit: 'avsd', sampling: { policy: null, seed: null, fps: 2 } })]);
  });

  it('without a model in its name needs --model', async () => {
    const f = files({ [REF]: REFERENCE, [MR]: MULTIREF, '8frame.json': result('a', 'b') });
    await expectImportError(readAvsd(f['8frame.json']!, { companions: [f[REF]!, f[MR]!], config: '8f' }), {
      file: '8frame.json',
      line: 0,
      field: 'model',
      reason: /^model unknown from the file name; pass --model$/,
    });
    const ok = await readAvsd(f['8frame.json']!, { companions: [f[REF]!, f[MR]!], config: '8f', model: 'M' });
    expect(ok.responses).toHaveLength(2);
  });

  it('refuses a dialog given twice and dialogs of two reference files', async () => {
    const twice = result('a', 'b');
    twice.dialogs.push(twice.dialogs[0]!);
    const f = files({ [REF]: REFERENCE, [MR]: MULTIREF, [RES]: twice });
    await expectImportError(readAvsd(f[RES]!, { companions: [f[REF]!, f[MR]!] }), {
      file: RES,
      line: lineOf(f[RES]!, '"image_id": "V1"', 1) - 1,
      field: 'dialogs[2].image_id',
      reason: /^dialog V1 again \(first at line 3\)$/,
    });
    const g = files({
      [REF]: { dialogs: [REFERENCE.dialogs[0]] },
      'valid_set4DSTC7-AVSD.json': { dialogs: [REFERENCE.dialogs[1]] },
      [MR]: MULTIREF,
      [RES]: result('a', 'b'),
    });
    await expectImportError(readAvsd(g[RES]!, { companions: [g[REF]!, g['valid_set4DSTC7-AVSD.json']!, g[MR]!] }), {
      file: RES,
      line: lineOf(g[RES]!, '"image_id": "V2"') - 1,
      field: 'dialogs[1].image_id',
      reason: /^dialog V2 is from valid_set4DSTC7-AVSD\.json, the file's first dialog from test_set4DSTC7-AVSD\.json: one result file answers one reference file$/,
    });
    const none = files({ [REF]: REFERENCE, [MR]: MULTIREF, [RES]: { dialogs: [{ image_id: 7, dialog: [] }] } });
    await expectImportError(readAvsd(none[RES]!, { companions: [none[REF]!, none[MR]!] }), { file: RES, line: 3, field: 'dialogs[0].image_id' });
  });

  it('reads as references only JSON files that name an AVSD key near their start, "dialogs" : spaced or not', async () => {
    const spaced = JSON.stringify(REFERENCE).replace('"dialogs":', '"dialogs" :\n ');
    const f = files({ [REF]: spaced, [MR]: MULTIREF, [RES]: result('he fries eggs', 'no'), 'notes.txt': JSON.stringify(REFERENCE) });
    const ok = await readAvsd(f[RES]!, { companions: [f[REF]!, f[MR]!] });
    expect(ok.responses).toHaveLength(2);
    // The same dialogs in a .txt beside it are not a reference.
    await expectImportError(readAvsd(f[RES]!, { companions: [f['notes.txt']!, f[MR]!] }), { file: MR, line: 0, field: '', reason: /needs the reference dialog file/ });
  });

  it('reads the references again when a file changes, and not a failed read', async () => {
    const f = files({ [REF]: REFERENCE, [MR]: MULTIREF, [RES]: result('he fries eggs', 'no') });
    const opts = { companions: [f[REF]!, f[MR]!] };
    expect((await readAvsd(f[RES]!, opts)).responses[0]!.score).toBe(1);
    // New captions for V1's turn: the next import reads them (a changed file has a new mtime).
    writeFileSync(
      f[MR]!,
      JSON.stringify({
        ...MULTIREF,
        annotations: [
          { image_id: 1, caption: 'she boils water' },
          { image_id: 2, caption: 'no' },
        ],
      }),
    );
    utimesSync(f[MR]!, new Date(), new Date(Date.now() + 5000));
    const again = await readAvsd(f[RES]!, opts);
    expect(again.responses.map((r) => r.score)).toEqual([0, 1]);
    // A multi-reference file that fails is not kept: once repaired, the same files read.
    writeFileSync(f[MR]!, JSON.stringify({ images: [{ name: 'V1_1', id: 1 }], annotations: [{ image_id: 5, caption: 'x' }] }));
    utimesSync(f[MR]!, new Date(), new Date(Date.now() + 10000));
    await expectImportError(readAvsd(f[RES]!, opts), { file: MR, line: 1, field: 'annotations.image_id' });
    await expectImportError(readAvsd(f[RES]!, opts), { file: MR, line: 1, field: 'annotations.image_id' });
    writeFileSync(f[MR]!, JSON.stringify(MULTIREF));
    utimesSync(f[MR]!, new Date(), new Date(Date.now() + 15000));
    expect((await readAvsd(f[RES]!, opts)).responses.map((r) => r.score)).toEqual([1, 0]);
  });
});

describe('a result, turn by turn', () => {
  /** A reference dialog `id` of `n` turns, the ones in `undisclosed` still __UNDISCLOSED__. */
  const dialog = (id: string, n: number, undisclosed: number[] = []) => ({
    image_id: id,
    caption: `video ${id}`,
    dialog: Array.from({ length: n }, (_, t) => turn(` q${t} ?`, undisclosed.includes(t) ? U : `a${t}`)),
  });
  /** The multi-reference captions of `names` (`<image_id>_<turn>`), one each. */
  const multiref = (names: string[]) => ({
    images: names.map((name, id) => ({ name, id })),
    annotations: names.map((name, id) => ({ image_id: id, caption: `ref ${name}` })),
  });
  /** A result answering `turns` of each dialog with "ans<turn>", questions as the reference has them. */
  const answers = (ids: string[], turns: number[]) => ({ dialogs: ids.map((id) => ({ image_id: id, dialog: turns.map((t) => turn(` q${t} ?`, `ans${t}`)) })) });

  it('names the first five missing dialogs, and an ellipsis only past five', async () => {
    const ids = ['V1', 'V2', 'V3', 'V4', 'V5', 'V6', 'V7'];
    const f = files({ [REF]: { dialogs: ids.map((id) => dialog(id, 1)) }, [RES]: answers(['V1'], [0]), 'Toy-7B_AVSD_16frame.json': answers(['V1', 'V2'], [0]) });
    await expectImportError(readAvsd(f[RES]!, { companions: [f[REF]!] }), {
      file: RES,
      line: 1,
      field: 'dialogs',
      reason: /^6 of the 7 dialogs of test_set4DSTC7-AVSD\.json missing: V2, V3, V4, V5, V6, … \(a result answers every dialog of its reference\)$/,
    });
    await expectImportError(readAvsd(f['Toy-7B_AVSD_16frame.json']!, { companions: [f[REF]!] }), {
      file: 'Toy-7B_AVSD_16frame.json',
      line: 1,
      field: 'dialogs',
      reason: /^5 of the 7 dialogs of test_set4DSTC7-AVSD\.json missing: V3, V4, V5, V6, V7 \(a result answers every dialog of its reference\)$/,
    });
  });

  it("compares questions without their surrounding spaces, and names the reference's question when they differ", async () => {
    const f = files({ [REF]: { dialogs: [dialog('V1', 2)] }, [RES]: { dialogs: [{ image_id: 'V1', dialog: [turn('q0 ?  ', 'x'), turn('\tq1 ?', 'y')] }] } });
    const ok = await readAvsd(f[RES]!, { companions: [f[REF]!] });
    expect(ok.responses.map((r) => [r.sampleId, r.pred])).toEqual([
      ['V1_0', 'x'],
      ['V1_1', 'y'],
    ]);
    const g = files({ [REF]: { dialogs: [dialog('V1', 2)] }, [RES]: { dialogs: [{ image_id: 'V1', dialog: [turn('q0 ?', 'x'), turn('q1 ?!', 'y')] }] } });
    await expectImportError(readAvsd(g[RES]!, { companions: [g[REF]!] }), {
      file: RES,
      line: lineOf(g[RES]!, '"question": "q1 ?!"') - 1,
      field: 'dialogs[0].dialog[1].question',
      reason: /^"q1 \?!" is not the reference's question at turn 1 of V1 \(" q1 \?"\)$/,
    });
  });

  it('takes only the evaluated turns when they are the last ones, else the whole dialog', async () => {
    // Turns 2 and 3 of 4 evaluated: a result may hold those two alone.
    const last = files({ [REF]: { dialogs: [dialog('V1', 4, [2, 3])] }, [MR]: multiref(['V1_2', 'V1_3']), [RES]: answers(['V1'], [2, 3]) });
    const a = await readAvsd(last[RES]!, { companions: [last[REF]!, last[MR]!] });
    expect(a.responses.map((r) => [r.sampleId, r.pred])).toEqual([
      ['V1_2', 'ans2'],
      ['V1_3', 'ans3'],
    ]);
    // Turns 0 and 2 of 3: not the last ones, so two turns are not enough.
    const gap = files({ [REF]: { dialogs: [dialog('V1', 3, [0, 2])] }, [MR]: multiref(['V1_0', 'V1_2']), [RES]: answers(['V1'], [0, 2]) });
    await expectImportError(readAvsd(gap[RES]!, { companions: [gap[REF]!, gap[MR]!] }), {
      file: RES,
      line: 3,
      field: 'dialogs[0].dialog',
      reason:
        /^2 turn\(s\); the reference dialog V1 \(test_set4DSTC7-AVSD\.json:3\) has 3, of which turn\(s\) 0, 2 are evaluated: a result holds every turn, or only the evaluated ones$/,
    });
    const whole = files({ [REF]: { dialogs: [dialog('V1', 3, [0, 2])] }, [MR]: multiref(['V1_0', 'V1_2']), [RES]: answers(['V1'], [0, 1, 2]) });
    const b = await readAvsd(whole[RES]!, { companions: [whole[REF]!, whole[MR]!] });
    expect(b.responses.map((r) => [r.sampleId, r.pred])).toEqual([
      ['V1_0', 'ans0'],
      ['V1_2', 'ans2'],
    ]);
    // A prototype set evaluates every turn: the result must hold them all.
    const proto = files({ [REF]: { dialogs: [dialog('V1', 2)] }, [RES]: answers(['V1'], [1]) });
    await expectImportError(readAvsd(proto[RES]!, { companions: [proto[REF]!] }), {
      file: RES,
      line: 3,
      field: 'dialogs[0].dialog',
      reason: /^1 turn\(s\); the reference dialog V1 \(test_set4DSTC7-AVSD\.json:3\) has 2, all of them evaluated: a result holds every turn, or only the evaluated ones$/,
    });
  });

  it('reads multi-references of turns past the ninth', async () => {
    const f = files({ [REF]: { dialogs: [dialog('V1', 11, [10])] }, [MR]: multiref(['V1_10']), [RES]: answers(['V1'], [10]) });
    const a = await readAvsd(f[RES]!, { companions: [f[REF]!, f[MR]!] });
    expect(a.items.map((i) => [i.sampleId, i.references])).toEqual([['V1_10', ['ref V1_10']]]);
    expect(a.responses.map((r) => [r.sampleId, r.score])).toEqual([['V1_10', 0]]);
  });

  it('names the reference files when a dialog is in none of them', async () => {
    const f = files({ [REF]: { dialogs: [dialog('V1', 1)] }, 'valid_set4DSTC7-AVSD.json': { dialogs: [dialog('V2', 1)] }, [RES]: answers(['V3'], [0]) });
    await expectImportError(readAvsd(f[RES]!, { companions: [f[REF]!, f['valid_set4DSTC7-AVSD.json']!] }), {
      file: RES,
      line: 3,
      field: 'dialogs[0].image_id',
      reason: /^dialog V3 is not in the reference \(test_set4DSTC7-AVSD\.json, valid_set4DSTC7-AVSD\.json\)$/,
    });
  });
});

/**
 * The importers' small parts on their own: option lists as tables store them, the header row
 * with duplicated columns (docs/formats.md "Duplicated columns"), lmms-eval's `model_args`, and
 * an error carried across a worker thread as data. Each reader's own tests reach these through
 * whole files; here each rule is checked by itself.
 */
import { describe, expect, it } from 'vitest';
import { errorData, errorFromData } from '../../../electron/importers/error-data';
import { ImportError } from '../../../electron/importers/errors';
import { Header } from '../../../electron/importers/header';
import { parseListLiteral } from '../../../electron/importers/list-literal';
import { FRAME_ARGS, framesFromArgs, parseModelArgs, pixelsFromArgs } from '../../../electron/importers/model-args';

describe('parseListLiteral', () => {
  it('reads a JSON array of strings', () => {
    expect(parseListLiteral(' ["A. red", "B. it\\"s"] ')).toEqual(['A. red', 'B. it"s']);
    expect(parseListLiteral('[]')).toEqual([]);
  });

  it('reads a Python list literal: either quote, escapes, spaces and a trailing comma', () => {
    expect(parseListLiteral(`['A. x', "B. it's"]`)).toEqual(['A. x', "B. it's"]);
    expect(parseListLiteral(`[ 'a' ,\n 'b' , ]`)).toEqual(['a', 'b']);
    expect(parseListLiteral(`['l1\\nl2', 'tab\\there', 'cr\\r', 'back\\\\slash', 'q\\'', "d\\""]`)).toEqual(['l1\nl2', 'tab\there', 'cr\r', 'back\\slash', "q'", 'd"']);
    // An escape Python would read otherwise is kept as written.
    expect(parseListLiteral(`['\\x41', '\\u00e9']`)).toEqual(['\\x41', '\\u00e9']);
    expect(parseListLiteral('[ ]')).toEqual([]);
    expect(parseListLiteral(`['']`)).toEqual(['']);
  });

  it('reads one option per line, blank lines dropped', () => {
    expect(parseListLiteral('A. red\n\n  B. blue  \nC. green')).toEqual(['A. red', 'B. blue', 'C. green']);
  });

  it('gives null for anything else', () => {
    for (const t of ['', '   ', 'red', '[1, 2]', "['a', 1]", "['a'] x", "['a' 'b']", "['a'", "['a\\']", '[a]', "['a',, 'b']", '[ ] ]', "['a'],", "['a', ] x", '[']) {
      expect(parseListLiteral(t), t).toBeNull();
    }
  });
});

describe('Header', () => {
  it('keeps distinct names in first-seen order, the full width and each first index', () => {
    const h = new Header(['id', 'pred', 'gt', 'pred', 'id', 'extra'], 'r.csv');
    expect(h.names).toEqual(['id', 'pred', 'gt', 'extra']);
    expect(h.width).toBe(6);
    expect([h.index('id'), h.index('pred'), h.index('extra'), h.index('nope')]).toEqual([0, 1, 5, -1]);
    expect([h.has('gt'), h.has('nope')]).toEqual([true, false]);
  });

  it('reads a row whose copies agree (as JSON, missing as null), as a record of the first copies', () => {
    const h = new Header(['id', 'pred', 'pred'], 'r.csv');
    expect(h.record(['q1', 'A', 'A'], 2)).toEqual({ id: 'q1', pred: 'A' });
    expect(h.record(['q2', { v: [1] }, { v: [1] }], 3)).toEqual({ id: 'q2', pred: { v: [1] } });
    expect(h.record(['q3', null], 4)).toEqual({ id: 'q3', pred: null });
    expect(h.record(['q4', undefined, null], 5)).toEqual({ id: 'q4', pred: undefined });
  });

  it('refuses a row whose copies differ, naming the line, the column and both positions', () => {
    const h = new Header(['id', 'pred', 'gt', 'pred'], 'runs/r.csv');
    for (const [a, b, shown] of [
      ['A', 'B', '"A" and "B"'],
      ['A', null, '"A" and null'],
      [1, '1', '1 and "1"'],
    ] as const) {
      let caught: unknown = null;
      try {
        h.record(['q1', a, 'C', b], 7);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(ImportError);
      const e = caught as ImportError;
      expect([e.file, e.line, e.field, e.reason]).toEqual(['runs/r.csv', 7, 'pred', `duplicated column "pred" (columns 2 and 4) with different values: ${shown}`]);
    }
  });
});

describe('model_args', () => {
  it('splits key=value pairs at commas, trimmed, skipping parts without a key', () => {
    expect([...parseModelArgs('pretrained=lmms-lab/LLaVA-Video-7B-Qwen2, max_frames_num = 64 ,=x,flag,conv_template=qwen_1_5,a=b=c')]).toEqual([
      ['pretrained', 'lmms-lab/LLaVA-Video-7B-Qwen2'],
      ['max_frames_num', '64'],
      ['conv_template', 'qwen_1_5'],
      ['a', 'b=c'],
    ]);
    expect([parseModelArgs(''), parseModelArgs(null), parseModelArgs(undefined)].map((m) => m.size)).toEqual([0, 0, 0]);
  });

  it('takes the frame count from the first frame argument in precedence order that is a whole number', () => {
    expect(FRAME_ARGS).toEqual(['max_frames_num', 'max_num_frames', 'num_frame', 'nframes', 'num_frames', 'frames_upbound']);
    expect(framesFromArgs(parseModelArgs('frames_upbound=32,nframes=16'))).toEqual({ frames: 16, arg: 'nframes' });
    expect(framesFromArgs(parseModelArgs('max_frames_num=auto,num_frames=8'))).toEqual({ frames: 8, arg: 'num_frames' });
    expect(framesFromArgs(parseModelArgs('max_frames_num=64,max_num_frames=8'))).toEqual({ frames: 64, arg: 'max_frames_num' });
    expect(framesFromArgs(parseModelArgs('max_num_frames=12,num_frame=4'))).toEqual({ frames: 12, arg: 'max_num_frames' });
    expect(framesFromArgs(parseModelArgs('num_frame=4'))).toEqual({ frames: 4, arg: 'num_frame' });
    expect(framesFromArgs(parseModelArgs('frames_upbound=32'))).toEqual({ frames: 32, arg: 'frames_upbound' });
    expect(framesFromArgs(parseModelArgs('fps=1,max_frames_num=1.5,nframes=16x'))).toBeNull();
  });

  it('reads max_pixels as a number or a product of numbers', () => {
    expect(pixelsFromArgs(parseModelArgs('max_pixels=602112'))).toBe(602112);
    expect(pixelsFromArgs(parseModelArgs('max_pixels=768*28*28'))).toBe(602112);
    expect(pixelsFromArgs(parseModelArgs('max_pixels=768 * 28'))).toBe(21504);
    for (const v of ['768*', '*28', '28**2', '1e6', 'auto', '']) expect(pixelsFromArgs(parseModelArgs(`max_pixels=${v}`)), v).toBeNull();
    expect(pixelsFromArgs(parseModelArgs('min_pixels=100'))).toBeNull();
  });
});

describe('errorData', () => {
  it('carries an ImportError whole and rebuilds it as one, its message as it was', () => {
    const e = new ImportError('runs/r.csv', 4, 'pred', 'bad');
    e.message = 'runs/r.csv:4: pred: bad (as the worker said it)';
    const d = errorData(e);
    expect(d).toEqual({
      name: 'ImportError',
      message: 'runs/r.csv:4: pred: bad (as the worker said it)',
      code: null,
      importError: { file: 'runs/r.csv', line: 4, field: 'pred', reason: 'bad' },
    });
    const back = errorFromData(d);
    expect(back).toBeInstanceOf(ImportError);
    expect([(back as ImportError).file, (back as ImportError).line, (back as ImportError).field, (back as ImportError).reason, back.message]).toEqual([
      'runs/r.csv',
      4,
      'pred',
      'bad',
      'runs/r.csv:4: pred: bad (as the worker said it)',
    ]);
  });

  it('carries any other error by name, message and string code, and a thrown non-error as its text', () => {
    const io = Object.assign(new Error('ENOSPC: no space left'), { code: 'ENOSPC' });
    io.name = 'SystemError';
    const d = errorData(io);
    expect(d).toEqual({ name: 'SystemError', message: 'ENOSPC: no space left', code: 'ENOSPC', importError: null });
    const back = errorFromData(d) as Error & { code?: string };
    expect(back).not.toBeInstanceOf(ImportError);
    expect([back.name, back.message, back.code]).toEqual(['SystemError', 'ENOSPC: no space left', 'ENOSPC']);
    expect(errorData(Object.assign(new TypeError('x'), { code: 7 }))).toEqual({ name: 'TypeError', message: 'x', code: null, importError: null });
    expect('code' in errorFromData({ name: 'TypeError', message: 'x', code: null, importError: null })).toBe(false);
    expect(errorData('boom')).toEqual({ name: 'Error', message: 'boom', code: null, importError: null });
    expect(errorData(undefined)).toEqual({ name: 'Error', message: 'undefined', code: null, importError: null });
  });
});

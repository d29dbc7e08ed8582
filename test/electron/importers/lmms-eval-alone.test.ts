/**
 * An lmms-eval samples file without the `<timestamp>_results.json` that names its model and
 * budget (docs/formats.md "lmms-eval"): --model and --config stand in, and without them it is
 * refused naming what to pass.
 */
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readLmmsEval } from '../../../electron/importers/lmms-eval';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

describe('an lmms-eval log without its results file', () => {
  it('needs --model and --config', async () => {
    const log = scratch.lmmsEvalLog('videomme', 'alone');
    rmSync(join(dirname(log), '20260301_101500_results.json'));
    await expectImportError(readLmmsEval(log), {
      file: '20260301_101500_samples_videomme.jsonl',
      line: 0,
      field: 'model',
      reason: /^model unknown: no \*_results\.json with model_name beside the file; pass --model$/,
    });
    await expectImportError(readLmmsEval(log, { model: 'M' }), { file: '20260301_101500_samples_videomme.jsonl', line: 0, field: 'config', reason: /^frame budget unknown/ });
    const b = await readLmmsEval(log, { model: 'M', config: '8f' });
    expect(b.responses.every((r) => r.model === 'M' && r.config === '8f')).toBe(true);
    expect(b.run.modelArgs).toBeNull();
  });

  it('with its results file, takes model and budget from it', async () => {
    const log = scratch.lmmsEvalLog('videomme', 'with');
    const b = await readLmmsEval(log);
    expect(b.run.modelArgs).not.toBeNull();
    expect(b.responses.every((r) => r.model !== 'M')).toBe(true);
  });
});

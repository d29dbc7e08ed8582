import { afterAll, describe, expect, it } from 'vitest';
import { detectFormat, readImport } from '../../../electron/importers/index';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

describe('detectFormat', () => {
  it('sniffs content when the extension says little', async () => {
    const jsonl = scratch.write('log.txt', '{"doc_id": 0, "filtered_resps": ["A"], "target": "A"}\n{"doc_id": 1, "filtered_resps": ["B"]}\n');
    expect(await detectFormat(jsonl)).toBe('lmms-eval');
  });

  it('names the unknown ones', async () => {
    await expectImportError(detectFormat(scratch.write('x.csv', 'a,b\n1,2\n')), { file: 'x.csv', line: 1, field: 'a' });
    await expectImportError(detectFormat(scratch.write('r.json', '{"results": {}, "config": {}}')), { file: 'r.json', line: 0, field: '', reason: /results summary/ });
    await expectImportError(detectFormat(scratch.write('y.bin', 'zzz')), { file: 'y.bin', line: 0, field: '' });
    await expectImportError(detectFormat(scratch.path('missing.csv')), { file: 'missing.csv', line: 0, field: '' });
  });

  it('rejects an unknown --format', async () => {
    await expectImportError(readImport(scratch.write('z.csv', 'sample_id\n'), { format: 'excel97' }), { file: 'z.csv', line: 0, field: 'format' });
  });

  it('--format overrides detection', async () => {
    const p = scratch.write('odd-name.data', 'sample_id,16f\n1,A\n');
    const [b] = await readImport(p, { format: 'wide-csv', model: 'M', split: 'S' });
    expect(b!.responses[0]).toMatchObject({ model: 'M', split: 'S', config: '16f', pred: 'A' });
  });
});

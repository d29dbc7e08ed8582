/**
 * The codebook a new project starts with (electron/store/default-codebook.ts): the shipped
 * assets/codebook.json, and no codebook (null) for a file that is absent, not JSON, or not a
 * codebook.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDefaultCodebook } from '../../../electron/store/default-codebook';
import { tempDir } from './helpers';

describe('the default codebook', () => {
  it("is the shipped asset's, whole", () => {
    const shipped = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../../assets/codebook.json'), 'utf8')) as { id: string; pathways: unknown[] };
    const cb = loadDefaultCodebook();
    expect(cb?.id).toBe(shipped.id);
    expect(cb?.pathways).toHaveLength(shipped.pathways.length);
    expect(cb?.pathways.length).toBeGreaterThan(0);
  });

  it('is none for a file that is absent, not JSON, or not a codebook; a valid one elsewhere is read', () => {
    const dir = tempDir('flipbook-default-cb-');
    const write = (name: string, body: string) => (fs.writeFileSync(path.join(dir, name), body), path.join(dir, name));
    expect(loadDefaultCodebook(path.join(dir, 'absent.json'))).toBeNull();
    expect(loadDefaultCodebook(write('bad.json', '{ not json'))).toBeNull();
    expect(loadDefaultCodebook(write('wrong.json', JSON.stringify({ id: 'x', version: -1, pathways: [] })))).toBeNull();
    expect(loadDefaultCodebook(write('ok.json', JSON.stringify({ id: 'lab', version: 3, pathways: [{ id: 'p', label: 'P' }] })))).toEqual({
      id: 'lab',
      version: 3,
      pathways: [{ id: 'p', label: 'P', description: '' }],
    });
  });
});

// Importing the same cell again (docs/formats.md): every column follows one rule — a value that
// differs from the stored one is a conflict (refused, nothing changes), a value the project
// lacks is filled in and counted as updated. Before, a changed confidence or frame_indices was
// dropped silently ("0 updated") while a changed prediction was refused.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readImport } from '../../../electron/importers/index';
import { ImportError } from '../../../electron/importers/errors';
import { openProject } from '../../../electron/store/index';
import { tempDir } from './helpers';

const HEADER = 'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note';
const OPT = ',confidence,margin,latency_s,frame_indices,score';

function write(dir: string, name: string, rows: string[], optional = true): string {
  const p = path.join(dir, name, 'per_item.csv');
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, `${HEADER}${optional ? OPT : ''}\n${rows.join('\n')}\n`);
  return p;
}

describe('re-importing a cell', () => {
  it('a changed confidence, margin, latency or frame_indices is refused like a changed prediction; nothing changes', async () => {
    const dir = tempDir();
    const project = openProject(path.join(dir, 'p.flipbook'), { create: true });
    try {
      const base = ['q1,M,S,8f,8,,A,A,1,t,,0.9,0.2,1.5,0 3 6 9 12 15 18 21,', 'q2,M,S,8f,8,,B,A,0,t,,0.4,,,,'];
      await project.applyImports(await readImport(write(dir, 'a', base)));
      const before = project.responsesForItem('M', 'S', 'q1');
      const variants: [string, string, string][] = [
        ['confidence', 'q1,M,S,8f,8,,A,A,1,t,,0.5,0.2,1.5,0 3 6 9 12 15 18 21,', 'confidence'],
        ['frames', 'q1,M,S,8f,8,,A,A,1,t,,0.9,0.2,1.5,1 3 6 9 12 15 18 21,', 'frame_indices'],
        ['margin', 'q1,M,S,8f,8,,A,A,1,t,,0.9,0.3,1.5,0 3 6 9 12 15 18 21,', 'margin'],
        ['latency', 'q1,M,S,8f,8,,A,A,1,t,,0.9,0.2,2.5,0 3 6 9 12 15 18 21,', 'latency_ms'],
        ['pred', 'q1,M,S,8f,8,,B,A,0,t,,0.9,0.2,1.5,0 3 6 9 12 15 18 21,', 'pred'],
      ];
      for (const [name, row, field] of variants) {
        const p = write(dir, name, [row, base[1]!]);
        let caught: unknown = null;
        try {
          project.applyImports(await readImport(p));
        } catch (e) {
          caught = e;
        }
        expect(caught, `${name}: expected a conflict`).toBeInstanceOf(ImportError);
        expect((caught as ImportError).field).toBe(field);
        expect((caught as ImportError).message).toMatch(new RegExp(`per_item\\.csv:2: ${field}: \\(M, S, q1, 8f\\) is already recorded with a different ${field}`));
        expect(project.responsesForItem('M', 'S', 'q1')).toEqual(before);
      }
    } finally {
      project.close();
    }
  });

  it('a value the project lacks is filled in and counted as updated', async () => {
    const dir = tempDir();
    const project = openProject(path.join(dir, 'p.flipbook'), { create: true });
    try {
      await project.applyImports(await readImport(write(dir, 'a', ['q1,M,S,8f,8,,A,A,1,t,', 'q2,M,S,8f,8,,B,A,0,t,'], false)));
      const s = project.applyImports(await readImport(write(dir, 'b', ['q1,M,S,8f,8,,A,A,1,t,,0.7,,,0 1 2 3 4 5 6 7,', 'q2,M,S,8f,8,,B,A,0,t,,,,,,'])));
      expect(s.responsesUpdated).toBe(1);
      expect(project.responsesForItem('M', 'S', 'q1')[0]).toMatchObject({ confidence: 0.7, frameIndices: [0, 1, 2, 3, 4, 5, 6, 7] });
    } finally {
      project.close();
    }
  });
});

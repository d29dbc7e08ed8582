/**
 * The transition the item view preselects (README "Item view"): the first harmed step of the
 * budget ladder between two visual configs, else the first harmed transition — never
 * `textonly>64f` for a regression that happened between 16 and 32 frames.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ItemDetail } from '../../../shared/api/contract';
import { createBackend, type Backend } from '../../../electron/api/create-backend';
import { dispatch } from '../../../electron/api/dispatch';
import { openProject } from '../../../electron/store/project';
import { batch, config, response, tempDir } from '../store/helpers';

const CONFIGS = [config('textonly', 0), config('16f_151k', 16, 151000), config('32f_151k', 32, 151000), config('64f_151k', 64, 151000)];
/** Pattern (textonly, 16f, 32f, 64f) → the transition to explain first. */
const CASES: [string, string | null][] = [
  ['1100', '16f_151k>32f_151k'],
  ['1000', 'textonly>16f_151k'],
  ['1010', '32f_151k>64f_151k'],
  ['0110', '32f_151k>64f_151k'],
  ['0101', '16f_151k>32f_151k'],
  ['1111', null],
  ['0011', null],
];

describe('the preselected transition', () => {
  let backend: Backend;
  beforeAll(() => {
    const file = path.join(tempDir('fb-default-transition-'), 'p.flipbook');
    const p = openProject(file, { create: true });
    let line = 1;
    const responses = CASES.flatMap(([pattern]) =>
      CONFIGS.map((c, i) =>
        response({ sampleId: `p${pattern}`, config: c.key, line: line++, pred: pattern[i] === '1' ? 'A' : 'B', correct: pattern[i] === '1', groundTruth: 'A' }),
      ),
    );
    p.applyImport(batch('grid', { configs: CONFIGS, responses }));
    p.close();
    backend = createBackend({ emit: () => {}, mediaUrl: (id) => `/media/${id}` });
    backend.open(file);
  });
  afterAll(() => backend?.close());

  it.each(CASES)('pattern %s → %s', async (pattern, want) => {
    const r = await dispatch(backend.handlers, 'item:get', { model: 'qwen', split: 'V1_short', sampleId: `p${pattern}` });
    if (!r.ok) throw new Error(r.error.message);
    const d = r.value as ItemDetail;
    expect(d.pattern).toBe(pattern);
    expect(d.defaultTransition).toBe(want);
    if (want !== null) expect(d.harmed).toContain(want);
  });
});

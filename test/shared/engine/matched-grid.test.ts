import { describe, expect, it } from 'vitest';
import { makeConfigSpec } from '../../../shared/engine/config';
import { matchedGridMetrics, proposeMatchedGrid } from '../../../shared/engine/matched-grid';
import { fromPatterns } from './helpers';

const g = (model: string, split: string, keys: string[]) => ({ model, split, configs: keys.map((k) => makeConfigSpec(k)) });
const L4 = ['textonly', '16f_151k', '32f_151k', '64f_151k'];

describe('proposeMatchedGrid', () => {
  it("the release's V1 grids give textonly,16f,32f,64f and leave LLaVA out for its 32-frame ceiling", () => {
    const p = proposeMatchedGrid([
      g('Qwen3-VL-8B', 'V1_short', [...L4, '128f_151k', '256f_151k']),
      g('Qwen3-VL-8B', 'V1_medium', [...L4, '128f_151k', '256f_151k']),
      g('InternVL3-8B', 'V1_short', L4),
      g('InternVL3-8B', 'V1_medium', [...L4, '128f_151k']),
      g('Qwen2.5-VL-7B', 'V1_short', [...L4, '128f_151k', '256f_151k', '128f_76k', '32f_302k']),
      g('Qwen2.5-VL-7B', 'V1_medium', [...L4, '128f_151k', '256f_151k']),
      g('LLaVA-NeXT-Video-7B', 'V1_short', ['textonly', '8f_151k', '16f_151k', '32f_151k']),
    ]);
    expect(p.configs).toEqual(L4);
    expect(p.models).toEqual(['InternVL3-8B', 'Qwen2.5-VL-7B', 'Qwen3-VL-8B']);
    expect(p.leftOut).toHaveLength(1);
    expect(p.leftOut[0]!.model).toBe('LLaVA-NeXT-Video-7B');
    expect(p.leftOut[0]!.reason).toMatch(/lacks 64f_151k on V1_short \(context ceiling\? at most 32 frames there\)/);
    expect(p.leftOut[0]!.reason).toMatch(/no results on V1_medium/);
  });
  it('prefers more models on a score tie', () => {
    // {A,B} × {t,16,32} = 6 ; {A} × {t,16,32,64,128,256} = 6 → two models win
    const p = proposeMatchedGrid([g('A', 's', ['textonly', '16f_151k', '32f_151k', '64f_151k', '128f_151k', '256f_151k']), g('B', 's', ['textonly', '16f_151k', '32f_151k'])]);
    expect(p.models).toEqual(['A', 'B']);
    expect(p.configs).toEqual(['textonly', '16f_151k', '32f_151k']);
  });
  it('ignores non-ladder configs and names what a left-out model lacks', () => {
    const p = proposeMatchedGrid([
      g('A', 's', ['textonly', '16f_151k', '32f_151k', '64f_76k']),
      g('B', 's', ['textonly', '16f_151k', '32f_151k', '64f_76k']),
      g('C', 's', ['textonly', '64f_151k']),
    ]);
    // {A,B,C} × {textonly} = 3 < {A,B} × {textonly,16f,32f} = 6 (64f_76k is off the ladder)
    expect(p.configs).toEqual(['textonly', '16f_151k', '32f_151k']);
    expect(p.leftOut).toEqual([{ model: 'C', reason: 'lacks 16f_151k, 32f_151k on s' }]);
  });
  it('a model without results on a split lacks every config there (the literal "every split")', () => {
    const p = proposeMatchedGrid([g('A', 's1', ['textonly', '16f_151k']), g('A', 's2', ['textonly', '16f_151k']), g('B', 's1', ['textonly', '16f_151k'])]);
    expect(p.models).toEqual(['A']);
    expect(p.leftOut).toEqual([{ model: 'B', reason: 'has no results on s2' }]);
  });
  it('a split where a model has results only at another pixel budget does not count against it', () => {
    const p = proposeMatchedGrid([
      g('A', 's1', ['textonly', '16f_151k']),
      g('A', 's2', ['textonly', '16f_151k']),
      g('C', 's1', ['textonly', '16f_151k']),
      g('C', 's2', ['128f_input224']),
    ]);
    expect(p.models).toEqual(['A', 'C']);
    expect(p.configs).toEqual(['textonly', '16f_151k']);
  });
  it("all 18 grids of the release give its matched grid (InternVL3-8B's V2 grid is 128f_input224 only)", () => {
    const p = proposeMatchedGrid([
      g('InternVL3-8B', 'V1_medium', [...L4, '128f_151k']),
      g('InternVL3-8B', 'V1_short', L4),
      g('InternVL3-8B', 'V2_medium', ['128f_input224']),
      g('InternVL3.5-8B', 'MLVU', [...L4, '128f_151k']),
      g('InternVL3.5-8B', 'V1_medium', [...L4, '128f_151k']),
      g('InternVL3.5-8B', 'V1_short', L4),
      g('InternVL3.5-8B', 'V2_medium', ['128f_input224']),
      g('LLaVA-NeXT-Video-7B', 'MLVU', ['textonly', '8f_151k', '16f_151k', '32f_151k']),
      g('LLaVA-NeXT-Video-7B', 'V1_short', ['textonly', '8f_151k', '16f_151k', '32f_151k']),
      g('LLaVA-NeXT-Video-7B', 'V2_medium', ['textonly', '8f_151k', '16f_151k', '32f_151k']),
      g('Qwen2.5-VL-7B', 'MLVU', [...L4, '128f_151k']),
      g('Qwen2.5-VL-7B', 'V1_medium', [...L4, '128f_151k', '256f_151k']),
      g('Qwen2.5-VL-7B', 'V1_short', [...L4, '128f_151k', '128f_76k', '256f_151k', '32f_302k', '64f_235k', '64f_360k', '64f_76k']),
      g('Qwen2.5-VL-7B', 'V2_medium', [...L4, '128f_151k', '256f_151k']),
      g('Qwen3-VL-8B', 'MLVU', [...L4, '128f_151k']),
      g('Qwen3-VL-8B', 'V1_medium', [...L4, '128f_151k', '256f_151k']),
      g('Qwen3-VL-8B', 'V1_short', [...L4, '128f_151k', '256f_151k']),
      g('Qwen3-VL-8B', 'V2_medium', [...L4, '128f_151k']),
    ]);
    expect(p.configs).toEqual(L4);
    expect(p.models).toEqual(['InternVL3.5-8B', 'Qwen2.5-VL-7B', 'Qwen3-VL-8B']);
    expect(p.leftOut.find((x) => x.model === 'InternVL3-8B')!.reason).toMatch(/has no results on MLVU/);
  });
  it('empty input', () => {
    expect(proposeMatchedGrid([])).toEqual({ configs: [], models: [], leftOut: [] });
  });
});

describe('matchedGridMetrics', () => {
  it('keeps models with every grid config and items complete for all of them', () => {
    const a = fromPatterns([...L4, '128f_151k'], ['11111', '0.111', '10000', '01111'], ['i1', 'i2', 'i3', 'i4']);
    a.model = 'A';
    const b = fromPatterns(L4, ['0111', '1111', '1000', '....'], ['i1', 'i2', 'i3', 'i4']);
    b.model = 'B';
    const c = fromPatterns(['textonly', '16f_151k', '32f_151k'], ['111'], ['i1']);
    c.model = 'C';
    const r = matchedGridMetrics([a, b, c], L4);
    expect(r.configs).toEqual(L4);
    expect(r.leftOut).toEqual([{ model: 'C', missing: ['64f_151k'] }]);
    expect(r.itemIds).toEqual(['i1', 'i3']); // i2 incomplete for A, i4 for B
    expect(r.perModel.map((x) => [x.model, x.metrics.n, x.metrics.counts.visuallyConfused])).toEqual([
      ['A', 2, 1],
      ['B', 2, 1],
    ]);
    expect(r.perModel[0]!.metrics.configs).toEqual(L4); // 128f is not in the matched grid
    const other = fromPatterns(L4, ['1111']);
    other.split = 'X';
    expect(() => matchedGridMetrics([a, other], L4)).toThrow(/per split/);
  });
});

/**
 * readReleaseData (project-source.ts): the release snapshot of a real SQLite project — every
 * protocol's cells, the main protocol's grids and matrices (docs/release-format.md "Protocols in
 * the export"), the other protocols' matrices only where a grid has more than one, the
 * annotations as pathways.csv and evidence_spans.csv rows, the codebook with `null` for what a
 * pathway does not say, and the matched grid: the override, else the setting, else Flipbook's
 * proposal (docs/release-format.md "matched grid"). Expected values are worked out by hand from
 * the project built here.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ResponseRow } from '../../../shared/domain/types';
import { makeConfigSpec } from '../../../shared/engine/config';
import { MATCHED_GRID_SETTING, matchedGridOf, readReleaseData } from '../../../electron/release/project-source';
import type { ReleaseData } from '../../../electron/release/release-data';
import { openProject, type Project } from '../../../electron/store/project';
import { batch, response } from '../store/helpers';
import { tempDir } from '../../temp-dir';

const KEYS = ['textonly', '16f_151k', '32f_151k', '16f_151k@random'];

/**
 * Model M on S: the three main configs and 16f_151k@random (two protocols); item q3 has only the
 * @random cell. Model N on S: the main configs only. Model V on T: only @random cells (no main grid).
 */
function responses(): ResponseRow[] {
  const out: ResponseRow[] = [];
  let line = 1;
  const add = (model: string, split: string, sampleId: string, config: string, pred: string): void => {
    out.push(response({ model, split, sampleId, config, pred, groundTruth: 'A', line: line++ }));
  };
  for (const id of ['q1', 'q2']) for (const k of KEYS) add('M', 'S', id, k, id === 'q1' ? 'A' : 'B');
  add('M', 'S', 'q3', '16f_151k@random', 'A');
  for (const id of ['q1', 'q2']) for (const k of KEYS.slice(0, 3)) add('N', 'S', id, k, 'A');
  add('V', 'T', 't1', '16f_151k@random', 'C');
  return out;
}

const CODEBOOK = {
  id: 'test-codebook',
  version: 1,
  pathways: [
    { id: 'dilution', label: 'Evidence dilution', description: 'More frames bury the evidence.', applies_to: ['mcqa'], shortcut: 'd' },
    { id: 'distractor', label: 'Distractor frames', description: '' },
  ],
};

let project: Project;
/**
 * The snapshot, read on first use inside a test rather than in beforeAll: a throw in a hook
 * skips the file's tests instead of failing them, so a mistake that makes readReleaseData throw
 * would pass unnoticed (docs/testing.md).
 */
let cached: ReleaseData | undefined;
const release = (): ReleaseData => (cached ??= readReleaseData(project));
beforeAll(() => {
  project = openProject(`${tempDir('flipbook-project-source-')}/p.flipbook`, { create: true });
  project.applyImport(
    batch('ps.csv', {
      configs: KEYS.map((k) => makeConfigSpec(k)),
      responses: responses(),
      items: [
        { split: 'S', sampleId: 'q1', question: 'Q one?', options: ['a', 'b'], answer: 'A' },
        { split: 'S', sampleId: 'q2', question: 'Q two?', options: ['a', 'b'], answer: 'A' },
      ],
    }),
  );
  project.annotations.setCodebook(CODEBOOK);
  const t = { model: 'M', split: 'S', sampleId: 'q1' };
  project.annotations.apply({ op: 'setStatus', ...t, status: 'done' }, 'alice');
  project.annotations.apply({ op: 'setPrimary', ...t, pathway: 'dilution' }, 'alice');
  project.annotations.apply({ op: 'setPathway', ...t, pathway: 'distractor', on: true }, 'alice');
  project.annotations.apply({ op: 'setTransition', ...t, transition: '16f_151k>32f_151k' }, 'alice');
  project.annotations.apply({ op: 'setNotes', ...t, notes: 'seen at 32f' }, 'alice');
  project.annotations.apply({ op: 'setConfidence', ...t, confidence: 4 }, 'alice');
  project.annotations.apply({ op: 'addSpan', ...t, span: { startS: 1.5, endS: 3, label: 'the ball', coveredBy: ['32f_151k'] } }, 'alice');
  project.annotations.apply({ op: 'addSpan', ...t, span: { startS: 7, endS: 8.25, label: '', coveredBy: [] } }, 'alice');
  project.annotations.apply({ op: 'setStatus', model: 'N', split: 'S', sampleId: 'q2', status: 'needs_review' }, 'bob');
});
afterAll(() => project.close());

describe('readReleaseData', () => {
  it('keeps every protocol in grids, and the main protocol alone in mainGrids and matrices', () => {
    expect(release().mainProtocol).toBe('');
    expect(release().grids.map((g) => [g.model, g.split, g.sampleIds, g.columns.map((c) => c.config).sort()])).toEqual([
      ['M', 'S', ['q1', 'q2', 'q3'], [...KEYS].sort()],
      ['N', 'S', ['q1', 'q2'], KEYS.slice(0, 3).sort()],
      ['V', 'T', ['t1'], ['16f_151k@random']],
    ]);
    // M's main grid drops the @random column and q3 (no main cell); V has no main grid.
    expect(release().mainGrids.map((g) => [g.model, g.split, g.sampleIds, g.columns.map((c) => c.config).sort()])).toEqual([
      ['M', 'S', ['q1', 'q2'], KEYS.slice(0, 3).sort()],
      ['N', 'S', ['q1', 'q2'], KEYS.slice(0, 3).sort()],
    ]);
    expect(release().matrices.map((m) => [m.model, m.split, m.configs.map((c) => c.key), m.itemIds])).toEqual([
      ['M', 'S', KEYS.slice(0, 3), ['q1', 'q2']],
      ['N', 'S', KEYS.slice(0, 3), ['q1', 'q2']],
    ]);
    // q1 is right (A) everywhere on M, q2 wrong (B).
    const m = release().matrices[0]!;
    expect(Array.from(m.correct)).toEqual([1, 1, 1, 0, 0, 0]);
  });

  it('gives the other protocols a matrix only on a grid with more than one, keyed model \\0 split', () => {
    expect([...release().protocolMatrices.keys()]).toEqual(['M\u0000S']);
    const m = release().protocolMatrices.get('M\u0000S')!;
    expect([m.model, m.split]).toEqual(['M', 'S']);
    expect(m.configs.map((c) => c.key).sort()).toEqual([...KEYS].sort());
    expect(m.itemIds).toEqual(['q1', 'q2', 'q3']);
  });

  it('reads configs and items as the store has them', () => {
    expect(
      release()
        .configs.map((c) => c.key)
        .sort(),
    ).toEqual([...KEYS].sort());
    expect(release().items.map((i) => [i.split, i.sampleId, i.question])).toEqual(
      expect.arrayContaining([
        ['S', 'q1', 'Q one?'],
        ['S', 'q2', 'Q two?'],
      ]),
    );
    expect(release().items).toEqual(project.listItems());
  });

  it('writes one pathways row per annotated (item, annotator), with every field of its state', () => {
    const byKey = new Map(release().pathways.map((p) => [`${p.model}/${p.sampleId}/${p.annotator}`, p]));
    expect([...byKey.keys()].sort()).toEqual(['M/q1/alice', 'N/q2/bob']);
    const a = byKey.get('M/q1/alice')!;
    expect(a).toMatchObject({
      sampleId: 'q1',
      model: 'M',
      split: 'S',
      annotator: 'alice',
      status: 'done',
      primaryPathway: 'dilution',
      pathways: ['dilution', 'distractor'],
      transition: '16f_151k>32f_151k',
      notes: 'seen at 32f',
      confidence: 4,
      codebookVersion: project.annotations.getCodebook().version,
    });
    expect(Object.keys(a).sort()).toEqual(
      ['sampleId', 'model', 'split', 'annotator', 'status', 'primaryPathway', 'pathways', 'transition', 'notes', 'confidence', 'codebookVersion', 'createdAt', 'updatedAt'].sort(),
    );
    expect(a.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(a.updatedAt! >= a.createdAt!).toBe(true);
    const b = byKey.get('N/q2/bob')!;
    expect(b).toMatchObject({ split: 'S', status: 'needs_review', primaryPathway: null, pathways: [], transition: null, confidence: null });
    // Each row is the store's state of its key, field for field.
    for (const s of project.annotations.listStates()) {
      const row = byKey.get(`${s.model}/${s.sampleId}/${s.annotator}`)!;
      expect(row).toEqual({
        sampleId: s.sampleId,
        model: s.model,
        split: s.split,
        annotator: s.annotator,
        status: s.status,
        primaryPathway: s.primaryPathway,
        pathways: s.pathways,
        transition: s.transition,
        notes: s.notes,
        confidence: s.confidence,
        codebookVersion: s.codebookVersion,
        createdAt: s.createdAt,
        updatedAt: s.updatedAt,
      });
    }
  });

  it('writes one span row per evidence span, naming its item and annotator', () => {
    const spans = [...release().spans].sort((x, y) => x.startS - y.startS);
    expect(spans).toEqual([
      { sampleId: 'q1', model: 'M', split: 'S', annotator: 'alice', startS: 1.5, endS: 3, label: 'the ball', coveredBy: ['32f_151k'] },
      { sampleId: 'q1', model: 'M', split: 'S', annotator: 'alice', startS: 7, endS: 8.25, label: '', coveredBy: [] },
    ]);
  });

  it('carries the codebook, null where a pathway names no items or shortcut, and the event log', () => {
    // The store numbers the versions (the project starts with the default codebook, so this is 2).
    expect(project.annotations.getCodebook().version).toBe(2);
    expect(release().codebook).toEqual({
      id: 'test-codebook',
      version: 2,
      pathways: [
        { id: 'dilution', label: 'Evidence dilution', description: 'More frames bury the evidence.', appliesTo: ['mcqa'], shortcut: 'd' },
        { id: 'distractor', label: 'Distractor frames', description: '', appliesTo: null, shortcut: null },
      ],
    });
    expect(release().events).toEqual(project.annotations.exportEvents());
    expect(release().events).toHaveLength(9);
  });
});

describe('the matched grid', () => {
  it('is the proposal until one is set: the configs every model has on every split', () => {
    // M and N both have textonly, 16f and 32f on S; V has no main grid, so it does not count.
    // Read afresh: release() keeps what it first read, which may have been under a setting
    // another test of this block made (they run in any order: docs/testing.md).
    expect(readReleaseData(project).matchedGrid).toEqual(['textonly', '16f_151k', '32f_151k']);
  });

  it('is the setting when it is a list of config keys, else the proposal', () => {
    const proposal = ['textonly', '16f_151k', '32f_151k'];
    try {
      project.setSetting(MATCHED_GRID_SETTING, ['textonly', '32f_151k']);
      expect(readReleaseData(project).matchedGrid).toEqual(['textonly', '32f_151k']);
      expect(matchedGridOf(project, release().matrices)).toEqual(['textonly', '32f_151k']);
      project.setSetting(MATCHED_GRID_SETTING, []);
      expect(matchedGridOf(project, release().matrices)).toEqual([]);
      for (const bad of ['textonly,32f_151k', ['textonly', 5], { a: 1 }, null]) {
        project.setSetting(MATCHED_GRID_SETTING, bad);
        expect(matchedGridOf(project, release().matrices), JSON.stringify(bad)).toEqual(proposal);
      }
    } finally {
      project.setSetting(MATCHED_GRID_SETTING, null);
    }
  });

  it("is read from the setting projects store it under, 'matchedGrid'", async () => {
    // The key is a constant of the module: loaded afresh, so that a mistake in it shows whenever
    // this test runs (docs/testing.md, module-level code).
    vi.resetModules();
    const fresh = await import('../../../electron/release/project-source');
    try {
      project.setSetting('matchedGrid', ['32f_151k']);
      expect(fresh.MATCHED_GRID_SETTING).toBe('matchedGrid');
      expect(fresh.matchedGridOf(project, release().matrices)).toEqual(['32f_151k']);
    } finally {
      project.setSetting('matchedGrid', null);
    }
  });

  it('is the override when one is given, whatever the setting, as a list of its own', () => {
    const override = ['16f_151k'];
    try {
      project.setSetting(MATCHED_GRID_SETTING, ['textonly', '32f_151k']);
      const got = readReleaseData(project, { matchedGrid: override }).matchedGrid;
      expect(got).toEqual(['16f_151k']);
      got.push('x');
      expect(override).toEqual(['16f_151k']);
      // The setting's list is a copy too: changing what came back changes no later answer.
      const fromSetting = matchedGridOf(project, release().matrices);
      fromSetting.push('y');
      expect(matchedGridOf(project, release().matrices)).toEqual(['textonly', '32f_151k']);
    } finally {
      project.setSetting(MATCHED_GRID_SETTING, null);
    }
  });
});

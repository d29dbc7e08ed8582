/**
 * The generated README.md of an export (docs/release-format.md: "contents, counts, licence
 * note"): the one date line export-target.ts looks for, a contents table naming the layout's
 * files (benchmark text only with --include-text), the counts it is given, the columns Flipbook
 * adds (docs/release-format.md "labels/per_item.csv"), why Flipbook's confusion differs from
 * the release's on a mixed-resolution grid (docs/metrics.md §2), and the licence note. Each
 * expectation is a fact of those docs or of the hand-made facts below.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { README_DATE_PREFIX, readmeText, type ReadmeFacts } from '../../../electron/release/readme';
import { specLayout } from './spec-layout';

const BASE: ReadmeFacts = {
  // Late on 4 March in UTC: already 5 March east of Greenwich; the README prints the UTC date.
  date: new Date('2026-03-04T23:30:00Z'),
  cells: 1234,
  derivedRows: 56,
  items: 78,
  models: ['LLaVA', 'Qwen'],
  splits: ['V1_short'],
  configs: ['textonly', '16f_151k', '32f_151k'],
  pairs: 2,
  excluded: 3,
  matchedGrid: ['textonly', '16f_151k'],
  optionalColumns: ['confidence', 'score'],
  pathwayRows: 9,
  spanRows: 4,
  includeText: false,
  mixedResolution: [],
};

const TEXT_ONLY = ['labels/items.csv', 'labels/generations.csv'];

/** The lines of the `## title` section (up to the next `## `), blank lines dropped. */
function section(text: string, title: string): string[] {
  const lines = text.split('\n');
  const at = lines.indexOf(`## ${title}`);
  if (at < 0) throw new Error(`no section ${title}`);
  const end = lines.findIndex((l, i) => i > at && l.startsWith('## '));
  return lines.slice(at + 1, end < 0 ? undefined : end).filter((l) => l !== '');
}

/** The paths of the contents table's rows, and each row's description. */
function contentsRows(text: string): { path: string; holds: string }[] {
  const rows = section(text, 'Contents');
  expect(rows.slice(0, 2)).toEqual(['| path | holds |', '|---|---|']);
  return rows.slice(2).map((r) => {
    const m = /^\| `([^`]+)` \| (.+) \|$/.exec(r);
    if (!m) throw new Error(`not a contents row: ${r}`);
    return { path: m[1]!, holds: m[2]! };
  });
}

let plain = '';
let withText = '';
let bare = '';
beforeAll(() => {
  plain = readmeText(BASE);
  withText = readmeText({ ...BASE, includeText: true });
  bare = readmeText({
    ...BASE,
    cells: 0,
    derivedRows: 0,
    items: 0,
    models: [],
    splits: [],
    configs: [],
    pairs: 0,
    excluded: 0,
    matchedGrid: [],
    optionalColumns: [],
    pathwayRows: 0,
    spanRows: 0,
  });
});

describe('readmeText', () => {
  it('has one date line, the UTC date in ISO form, which export-target.ts recognises', () => {
    const dated = plain.split('\n').filter((l) => l.startsWith(README_DATE_PREFIX));
    expect(dated).toEqual(['Exported by Flipbook on 2026-03-04.']);
    expect(README_DATE_PREFIX).toBe('Exported by Flipbook on ');
    // Only that line differs between two dates.
    const other = readmeText({ ...BASE, date: new Date('1999-12-31T00:00:00Z') }).split('\n');
    const diff = plain.split('\n').flatMap((l, i) => (l === other[i] ? [] : [[l, other[i]]]));
    expect(diff).toEqual([['Exported by Flipbook on 2026-03-04.', 'Exported by Flipbook on 1999-12-31.']]);
  });

  it('is Markdown under one title, its sections in order, every line ending in \\n', () => {
    const lines = plain.split('\n');
    expect(lines[0]).toBe('# Flipbook release export');
    expect(lines.filter((l) => l.startsWith('## '))).toEqual([
      '## Contents',
      '## Counts',
      '## Columns Flipbook adds',
      '## Visual confusion on mixed-resolution grids',
      '## Licence',
    ]);
    expect(plain.endsWith('\n')).toBe(true);
    expect(plain.endsWith('\n\n')).toBe(false);
    // The introduction says whose layout this is and where Flipbook's own files go.
    const intro = lines.slice(1, lines.indexOf('## Contents')).join('\n');
    expect(intro).toContain('`video-mme-scalegrid` release (*Stable Curves, Unstable Items*)');
    expect(intro).toContain("Flipbook's annotations are in `annotations/`");
  });

  it('sets the title, the date line and each heading apart by one blank line', () => {
    const mixed = readmeText({ ...BASE, mixedResolution: [{ model: 'Q', split: 'S', configs: 3, visualConfusionRate: 1 }] });
    for (const text of [plain, withText, bare, mixed]) {
      const lines = text.split('\n');
      const date = lines.findIndex((l) => l.startsWith(README_DATE_PREFIX));
      expect([lines[date - 1], lines[date + 1]]).toEqual(['', '']);
      lines.forEach((l, i) => {
        if (l.startsWith('#')) {
          expect(lines[i + 1], `after ${l}`).toBe('');
          if (i > 0) expect(lines[i - 1], `before ${l}`).toBe('');
        }
        if (l === '' && i > 0) expect(lines[i - 1], `line ${i + 1}`).not.toBe('');
      });
    }
  });

  it('lists the layout in its contents table, benchmark-text files only with --include-text', () => {
    const layout = specLayout().filter((p) => p !== 'README.md');
    expect(layout).toContain('annotations/events.jsonl');
    const rows = contentsRows(plain);
    expect(rows.map((r) => r.path)).toEqual(layout.filter((p) => !TEXT_ONLY.includes(p)));
    for (const r of rows) expect(r.holds.length, r.path).toBeGreaterThan(10);
    expect(rows.find((r) => r.path === 'labels/per_item.csv')!.holds).toContain('(model, split, sample_id, config)');
    expect(rows.find((r) => r.path === 'provenance/videos.csv')!.holds).toContain('no benchmark text');
    const withRows = contentsRows(withText);
    expect(withRows.map((r) => r.path)).toEqual(layout);
    expect(withRows.find((r) => r.path === 'labels/items.csv')!.holds).toContain('benchmark question');
    expect(withRows.find((r) => r.path === 'labels/generations.csv')!.holds).toContain('generated');
  });

  it('states the counts it is given', () => {
    expect(section(plain, 'Counts')).toEqual([
      '- 1234 response cells (per_item.csv rows) over 78 items',
      '- 2 models: LLaVA, Qwen',
      '- 1 splits: V1_short',
      '- 3 configs: textonly, 16f_151k, 32f_151k',
      '- 2 (model, split) grids; 56 derived rows; 3 item rows excluded for a missing cell',
      '- matched grid: textonly, 16f_151k',
      '- 9 pathway annotations, 4 evidence spans',
    ]);
    expect(section(bare, 'Counts')).toEqual([
      '- 0 response cells (per_item.csv rows) over 0 items',
      '- 0 models: —',
      '- 0 splits: —',
      '- 0 configs: —',
      '- 0 (model, split) grids; 0 derived rows; 0 item rows excluded for a missing cell',
      '- matched grid: (none set)',
      '- 0 pathway annotations, 0 evidence spans',
    ]);
  });

  it('names the optional per_item.csv columns of docs/release-format.md, and those this export has', () => {
    const cols = section(plain, 'Columns Flipbook adds').join('\n');
    expect(cols).toContain("`per_item.csv` has the release's eleven columns");
    expect(cols).toContain('`confidence, margin, latency_s, frame_indices, score`');
    expect(cols).toContain('(here: confidence, score).');
    expect(cols).toContain('`frame_indices` are space-separated');
    expect(cols).toContain('`n_excluded`');
    expect(cols).toContain('Readers ignore columns and fields they do not know.');
    expect(section(bare, 'Columns Flipbook adds').join('\n')).toContain('(here: none).');
  });

  it("explains dominance against the release's 30.4071, and lists this export's mixed-resolution grids", () => {
    const vis = section(plain, 'Visual confusion on mixed-resolution grids').join('\n');
    expect(vis).toContain('correct at a lower budget and wrong at a');
    expect(vis).toContain('fewer-or-equal frames AND fewer-or-equal pixels per frame');
    expect(vis).toContain('are not an ordering and are never counted as');
    expect(vis).toContain('(Qwen2.5-VL-7B, V1_short, 11 configs)');
    expect(vis).toContain('release reports 30.4071');
    expect(vis).not.toContain('in this export');

    const mixed = readmeText({
      ...BASE,
      mixedResolution: [
        { model: 'Qwen', split: 'V1_short', configs: 11, visualConfusionRate: 12.345649 },
        { model: 'LLaVA', split: 'V2', configs: 3, visualConfusionRate: null },
        { model: 'Z', split: 'S', configs: 2, visualConfusionRate: 0 },
      ],
    });
    const lines = section(mixed, 'Visual confusion on mixed-resolution grids');
    expect(lines.slice(lines.indexOf('Mixed-resolution grids in this export:'))).toEqual([
      'Mixed-resolution grids in this export:',
      '- Qwen V1_short (11 configs): visual_confusion_rate 12.3456',
      '- LLaVA V2 (3 configs): visual_confusion_rate n/a',
      '- Z S (2 configs): visual_confusion_rate 0.0000',
    ]);
    // A blank line before the list, and before the next section.
    expect(mixed).toContain('agree exactly.\n\nMixed-resolution grids in this export:\n\n- Qwen');
    expect(mixed).toContain('0.0000\n\n## Licence');
  });

  it('says the labels are CC BY 4.0, the videos are not included, and whether benchmark text is', () => {
    const lic = section(plain, 'Licence').join('\n');
    expect(lic).toContain('CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)');
    expect(lic).toContain('`video-mme-scalegrid` release when the labels derive from it');
    expect(lic).toContain('Videos are not redistributed');
    expect(lic).toContain('Benchmark question text, options and answers are omitted');
    expect(lic).not.toContain('INCLUDES');
    const licText = section(withText, 'Licence').join('\n');
    expect(licText).toContain('This export INCLUDES benchmark question text');
    expect(licText).not.toContain('are omitted');
  });
});

/**
 * Protocols on the real V1 data of the public release (docs/metrics.md §6): the release's wide
 * CSVs joined with Video-MME's answers from a real lmms-eval log, once alone (project A) and
 * once with a sampling variant (`@random`) and a raw-pipeline variant (`@raw`) of some grids
 * beside them (project B). B's headline numbers, queue and export must be A's exactly; its
 * `flipbook metrics --json` must report every variant's agreement and sampling recovery, and an
 * independent computation here (brute force over the files' letters, no engine code) must
 * agree with it to 1e-9.
 *
 * The variant files are made from the release's own letters with a seeded generator (seed
 * printed): a variant cell keeps the main config's letter, or (12%) becomes the answer, or
 * (12%) another letter — so items enter and leave every set and some regressions recover.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { EMPTY_FILTER } from '../../../shared/api/queue-filter';
import { readImport } from '../../../electron/importers/index';
import { openProject } from '../../../electron/store/project';
import { exportRelease } from '../../../electron/release/export';
import { createQueueTable } from '../../../electron/derived/queue-table';
import { metricsReport } from '../../../electron/cli/commands/metrics';
import { realFixturesPresent } from '../../real-fixtures';
import { tempDir } from '../../temp-dir';
import { flipbook } from './cli-helpers';

const fixtures = path.resolve(__dirname, '../../../../shared/fixtures');
const aggDir = path.join(fixtures, 'scalegrid/labels/aggregated');
const lmmsLog = path.join(fixtures, 'lmms-eval/20251106_202956_samples_videomme.jsonl');
const present = realFixturesPresent('protocols on the real release', aggDir, lmmsLog);

const SEED = 31031;
const V1 = /^(.+)_(V1_short|V1_medium)_predictions_wide\.csv$/;
/** model / split → variant tag → the budgets it was "run" at. */
const VARIANTS: Record<string, Record<string, string[]>> = {
  'Qwen2.5-VL-7B\u0000V1_short': { random: ['64f_151k', '256f_151k'], raw: ['16f_151k', '32f_151k', '64f_151k', '128f_151k', '256f_151k'] },
  'Qwen3-VL-8B\u0000V1_short': { random: ['256f_151k'], dense_start: ['64f_151k', '256f_151k'] },
  'InternVL3-8B\u0000V1_short': { raw: ['16f_151k', '32f_151k', '64f_151k'] },
};

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Video-MME v1 answers by question id, and each question's duration bucket, from the lmms-eval log. */
function answers(): { answer: Map<string, string>; duration: Map<string, string> } {
  const answer = new Map<string, string>();
  const duration = new Map<string, string>();
  for (const line of fs.readFileSync(lmmsLog, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const rec = JSON.parse(line) as { videomme_perception_score: { question_id: string; answer: string; duration: string } };
    answer.set(rec.videomme_perception_score.question_id, rec.videomme_perception_score.answer);
    duration.set(rec.videomme_perception_score.question_id, rec.videomme_perception_score.duration);
  }
  return { answer, duration };
}

type Wide = { header: string[]; rows: Record<string, string>[] };
const readWide = (file: string): Wide => {
  const rows = parse(fs.readFileSync(file, 'utf8'), { columns: true }) as Record<string, string>[];
  return { header: Object.keys(rows[0]!), rows };
};

// ---------------------------------------------------------------- the independent computation
// Dominance over config keys `<frames>f_<k>k` (docs/metrics.md §1), written out again here.
const framesOf = (k: string) => (k.startsWith('textonly') ? 0 : Number(/^(\d+)f/.exec(k)![1]));
const ppfOf = (k: string) => (k.startsWith('textonly') ? 0 : Number(/_(\d+)k/.exec(k)![1]) * 1000);
const lower = (a: string, b: string) => {
  if (framesOf(a) === 0 || framesOf(b) === 0) return framesOf(a) === 0 && framesOf(b) > 0;
  const fa = framesOf(a),
    fb = framesOf(b),
    pa = ppfOf(a),
    pb = ppfOf(b);
  return fa <= fb && pa <= pb && (fa < fb || pa < pb);
};
const terminalOf = (keys: string[]) =>
  keys.filter((k) => framesOf(k) > 0).sort((a, b) => framesOf(b) * ppfOf(b) - framesOf(a) * ppfOf(a) || framesOf(b) - framesOf(a) || (a < b ? 1 : -1))[0]!;

interface Flags {
  confused: Set<string>;
  terminal: Set<string>;
  overwrite: Set<string>;
  n: number;
}
function flagsOf(y: Map<string, Map<string, number>>, keys: string[]): Flags {
  const out: Flags = { confused: new Set(), terminal: new Set(), overwrite: new Set(), n: 0 };
  const t = terminalOf(keys);
  const text = keys.find((k) => framesOf(k) === 0);
  for (const [id, row] of y) {
    if (!keys.every((k) => row.has(k))) continue;
    out.n++;
    if (keys.some((a) => keys.some((b) => lower(a, b) && row.get(a) === 1 && row.get(b) === 0))) out.confused.add(id);
    if (row.get(t) === 0 && keys.some((c) => lower(c, t) && row.get(c) === 1)) out.terminal.add(id);
    if (text && row.get(text) === 1 && keys.some((c) => framesOf(c) > 0 && row.get(c) === 0)) out.overwrite.add(id);
  }
  return out;
}

describe.skipIf(!present)('protocols on the real V1 release data', () => {
  let dir = '';
  let plain = '';
  let withVariants = '';
  const files: string[] = [];
  const variantFiles: string[] = [];
  /** model\0split → sample → config → 1/0 (main and variant configs). */
  const outcome = new Map<string, Map<string, Map<string, number>>>();

  beforeAll(async () => {
    console.log(`protocols-real: variant letters from mulberry32 seed ${SEED}`);
    dir = tempDir('fb-protocols-real-');
    const { answer, duration } = answers();
    const rnd = mulberry32(SEED);
    for (const f of fs.readdirSync(aggDir).sort()) {
      const m = V1.exec(f);
      if (!m) continue;
      files.push(path.join(aggDir, f));
      const key = `${m[1]}\u0000${m[2]}`;
      const wide = readWide(path.join(aggDir, f));
      const ys = new Map<string, Map<string, number>>();
      const bucket = m[2]!.slice(3);
      for (const r of wide.rows) {
        if (duration.get(r.sample_id!) !== bucket) continue;
        const row = new Map<string, number>();
        for (const c of wide.header.slice(1)) row.set(c, r[c] === answer.get(r.sample_id!) ? 1 : 0);
        ys.set(r.sample_id!, row);
      }
      outcome.set(key, ys);
      const variants = VARIANTS[key];
      if (!variants) continue;
      for (const [tag, budgets] of Object.entries(variants)) {
        const cols = budgets.map((b) => `${b}@${tag}`);
        const lines = [['sample_id', ...cols].join(',')];
        for (const r of wide.rows) {
          const gt = answer.get(r.sample_id!)!;
          const cells = budgets.map((b) => {
            const u = rnd();
            const letter = u < 0.12 ? gt : u < 0.24 ? 'ABCD'.replace(gt, '')[Math.floor(rnd() * 3)]! : r[b]!;
            ys.get(r.sample_id!)?.set(`${b}@${tag}`, letter === gt ? 1 : 0);
            return letter;
          });
          lines.push([r.sample_id, ...cells].join(','));
        }
        const out = path.join(dir, tag, m[1]!, f);
        fs.mkdirSync(path.dirname(out), { recursive: true });
        fs.writeFileSync(out, `${lines.join('\n')}\n`);
        variantFiles.push(out);
      }
    }
    const build = async (file: string, inputs: string[]) => {
      const p = openProject(file, { create: true });
      try {
        const batches = [];
        for (const f of inputs) batches.push(...(await readImport(f, { groundTruth: lmmsLog })));
        p.applyImports(batches);
        createQueueTable(p).refresh();
      } finally {
        p.close();
      }
    };
    plain = path.join(dir, 'plain.flipbook');
    withVariants = path.join(dir, 'variants.flipbook');
    await build(plain, files);
    await build(withVariants, [...files, ...variantFiles]);
  }, 300_000);

  it('the main grid gives every headline number exactly as without the variant files', () => {
    const headline = (file: string) => {
      const p = openProject(file, { readOnly: true });
      try {
        const r = metricsReport(p);
        return {
          matched: r.matchedGrid,
          grids: r.grids.map((g) => ({ model: g.model, split: g.split, metrics: g.metrics, transitions: g.transitions, matchedGrid: g.matchedGrid })),
        };
      } finally {
        p.close();
      }
    };
    const a = headline(plain);
    const b = headline(withVariants);
    expect(b.grids.length).toBe(9);
    expect(b).toEqual(a);
    const qwen = b.grids.find((g) => g.model === 'Qwen2.5-VL-7B' && g.split === 'V1_short')!.metrics as {
      oracleHeadroomPts: number;
      visualConfusionRate: number;
      textOverwriteRate: number;
    };
    // The release's grid as published (docs/metrics.md §2): 11.45 points, 25.3% by dominance, 11.7%.
    expect(qwen.oracleHeadroomPts).toBeCloseTo(11.4504, 4);
    expect(qwen.visualConfusionRate).toBeCloseTo(199 / 786, 12);
    expect(qwen.textOverwriteRate).toBeCloseTo(92 / 786, 12);
  });

  it("the queue's rows (terminal regressions among them) are the plain import's", () => {
    const rows = (file: string) => {
      const p = openProject(file);
      try {
        const q = createQueueTable(p);
        const out = [];
        for (let offset = 0; ;) {
          const page = q.page({ filter: { ...EMPTY_FILTER, preset: 'all' }, sort: { key: 'model', desc: false }, offset, limit: 500 });
          out.push(...page.rows);
          offset += page.rows.length;
          if (page.rows.length === 0 || offset >= page.total) return out;
        }
      } finally {
        p.close();
      }
    };
    const a = rows(plain);
    const b = rows(withVariants);
    expect(b.filter((r) => r.flags.terminalRegression).length).toBeGreaterThan(100);
    expect(b).toEqual(a);
  });

  it("the export's aggregated files and derived.csv are the plain import's; per_item.csv keeps the variants", async () => {
    const outA = path.join(dir, 'export-a');
    const outB = path.join(dir, 'export-b');
    const now = new Date('2025-01-01T00:00:00Z');
    for (const [file, out] of [
      [plain, outA],
      [withVariants, outB],
    ] as const) {
      const p = openProject(file, { readOnly: true });
      try {
        await exportRelease(p, out, { now });
      } finally {
        p.close();
      }
    }
    const agg = fs.readdirSync(path.join(outA, 'labels/aggregated')).filter((f) => f !== 'protocols.json');
    expect(agg.length).toBe(2 * 9 + 2);
    for (const f of agg) expect(fs.readFileSync(path.join(outB, 'labels/aggregated', f), 'utf8'), f).toBe(fs.readFileSync(path.join(outA, 'labels/aggregated', f), 'utf8'));
    expect(fs.readFileSync(path.join(outB, 'labels/derived.csv'), 'utf8')).toBe(fs.readFileSync(path.join(outA, 'labels/derived.csv'), 'utf8'));
    const perItem = fs.readFileSync(path.join(outB, 'labels/per_item.csv'), 'utf8');
    expect(perItem).toContain(',64f_151k@random,');
    expect(perItem).toContain(',256f_151k@raw,');
  });

  it('metrics --json reports each variant’s agreement and recovery, equal to an independent computation (1e-9)', () => {
    const r = flipbook('metrics', '--project', withVariants, '--json');
    expect(r.code, r.stderr).toBe(0);
    type Change = { onlyMain: string[]; onlyVariant: string[]; both: number; jaccard: number | null };
    type Side = { n: number; visualConfusionRate: number; terminalRegressionRate: number; textOverwriteRate: number | null; configs: string[] };
    type Report = {
      protocols: { main: string; available: string[] };
      grids: {
        model: string;
        split: string;
        protocols: {
          protocol: string;
          agreement: { budgets: string[]; nCommon: number; main: Side; variant: Side; confused: Change; terminalRegression: Change; textOverwritten: Change | null } | null;
          recovery: { terminalConfig: string; alternatives: string[]; n: number; regressions: number; recovered: number; recoveryRate: number | null; recoveredItems: string[] };
        }[];
      }[];
    };
    const report = JSON.parse(r.stdout) as Report;
    expect(report.protocols.main).toBe('');
    expect(report.protocols.available).toEqual(['', 'dense_start', 'random', 'raw']);
    let compared = 0;
    for (const [key, variants] of Object.entries(VARIANTS)) {
      const [model, split] = key.split('\u0000') as [string, string];
      const g = report.grids.find((x) => x.model === model && x.split === split)!;
      const ys = outcome.get(key)!;
      const mainKeys = [...ys.values().next().value!.keys()].filter((k) => !k.includes('@'));
      const main = flagsOf(ys, mainKeys);
      expect(g.protocols.map((p) => p.protocol).sort()).toEqual(Object.keys(variants).sort());
      for (const [tag, budgets] of Object.entries(variants)) {
        const p = g.protocols.find((x) => x.protocol === tag)!;
        const a = p.agreement!;
        // The budgets both protocols have: text only (shared) and the variant's.
        const common = ['textonly', ...budgets];
        expect(new Set(a.budgets)).toEqual(new Set(common));
        const fa = flagsOf(ys, common);
        const fb = flagsOf(
          ys,
          common.map((b) => (b === 'textonly' ? b : `${b}@${tag}`)),
        );
        expect(a.main.n).toBe(fa.n);
        expect(a.variant.n).toBe(fb.n);
        expect(Math.abs(a.main.visualConfusionRate - fa.confused.size / fa.n)).toBeLessThan(1e-9);
        expect(Math.abs(a.variant.visualConfusionRate - fb.confused.size / fb.n)).toBeLessThan(1e-9);
        expect(Math.abs(a.main.terminalRegressionRate - fa.terminal.size / fa.n)).toBeLessThan(1e-9);
        expect(Math.abs(a.variant.terminalRegressionRate - fb.terminal.size / fb.n)).toBeLessThan(1e-9);
        expect(Math.abs(a.variant.textOverwriteRate! - fb.overwrite.size / fb.n)).toBeLessThan(1e-9);
        for (const [name, x, y] of [
          ['confused', fa.confused, fb.confused],
          ['terminalRegression', fa.terminal, fb.terminal],
          ['textOverwritten', fa.overwrite, fb.overwrite],
        ] as const) {
          const got = a[name]!;
          const onlyMain = [...x].filter((i) => !y.has(i)).sort();
          const onlyVariant = [...y].filter((i) => !x.has(i)).sort();
          const both = [...x].filter((i) => y.has(i)).length;
          expect(got.onlyMain, `${model} ${tag} ${name}`).toEqual(onlyMain);
          expect(got.onlyVariant).toEqual(onlyVariant);
          expect(got.both).toBe(both);
          const union = both + onlyMain.length + onlyVariant.length;
          if (union === 0) expect(got.jaccard).toBeNull();
          else expect(Math.abs(got.jaccard! - both / union)).toBeLessThan(1e-9);
          expect(onlyMain.length + onlyVariant.length).toBeGreaterThan(0);
        }
        // Sampling recovery: the main grid's terminal regressions the variant answers right at the terminal's budget.
        const t = terminalOf(mainKeys);
        const rec = p.recovery;
        expect(rec.terminalConfig).toBe(t);
        if (!budgets.includes(t)) {
          expect(rec.recoveryRate).toBeNull();
          continue;
        }
        const alt = `${t}@${tag}`;
        expect(rec.alternatives).toEqual([alt]);
        const recovered = [...main.terminal].filter((i) => ys.get(i)!.get(alt) === 1).sort();
        expect(rec.regressions).toBe(main.terminal.size);
        expect(rec.recoveredItems).toEqual(recovered);
        expect(Math.abs(rec.recoveryRate! - recovered.length / main.terminal.size)).toBeLessThan(1e-9);
        expect(recovered.length).toBeGreaterThan(0);
        compared++;
      }
    }
    expect(compared).toBe(5);
    // The table names every protocol with its recovery.
    const text = flipbook('metrics', '--project', withVariants);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/main protocol: untagged \(default\); protocols: untagged, @dense_start, @random, @raw/);
    expect(text.stdout).toMatch(/@random .* at 256f_151k@random/);
  });
});

/**
 * Seeded fuzzing of every importer (docs/formats.md "Damaged input", docs/security.md "Import
 * limits"). The readers fuzzed are the ones registered when the test runs: IMPORT_FORMATS, with
 * seeds found by detecting the format of every fixture under test/fixtures/ plus inputs made
 * here for the formats that have no file fixture (a per_item.csv, a release folder and zip
 * exported by Flipbook, a Video-MME parquet table, MLVU metadata, an AVSD run, the release
 * pipeline's rows and a frame cache). A registered format without
 * a seed fails the test: a new reader gets a fixture and is fuzzed from then on.
 *
 * Each trial copies a seed's folder, damages the file with one of byte flips, truncation,
 * invalid UTF-8, a huge field or a piece repeated or removed, and imports it exactly as
 * `flipbook import` does (readImportFiles + applyImportFiles) into a project that already
 * holds data. It must end as
 * a consistent import or an ImportError reading `file:line: field: reason` — never another
 * error (the CLI would print it bare, a stack trace in the app's log), never over a few
 * seconds, and never with part of it in the project. A few damaged files go through the real
 * CLI too. The seed is printed; FLIPBOOK_FUZZ_SEED repeats a run, FLIPBOOK_FUZZ_TRIALS sets
 * the trials per format.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_FORMATS, type ImportFormat, type ImportOptionValues } from '../../../shared/api/import-options';
import { mulberry32 } from '../../../shared/engine/prng';
import { ImportError } from '../../../electron/importers/errors';
import { detectFormat } from '../../../electron/importers/index';
import { applyImportFiles, readImportFiles } from '../../../electron/jobs/import-files';
import { exportRelease } from '../../../electron/release/export';
import { openProject } from '../../../electron/store/index';
import { flipbook, writePerItem } from '../cli/cli-helpers';
import { tempDir } from '../../temp-dir';
import { writeAvsdRun } from '../../avsd-run';
import { repoRoot } from './helpers';

const SEED = process.env.FLIPBOOK_FUZZ_SEED ? Number(process.env.FLIPBOOK_FUZZ_SEED) : Date.now() % 0x100000000;
const TRIALS = Number(process.env.FLIPBOOK_FUZZ_TRIALS ?? 20);
/** "Never over a few seconds": the longest a damaged file may take to be imported or refused. */
const LIMIT_MS = 5000;
const rand = mulberry32(SEED);
const int = (n: number): number => Math.floor(rand() * n);
console.log(`importer fuzz: seed ${SEED}, ${TRIALS} trials per format (FLIPBOOK_FUZZ_SEED=${SEED} repeats this run)`);

/** A seed: a folder to copy and the paths inside it imported together (files or folders). */
interface Seed {
  format: ImportFormat;
  dir: string;
  targets: string[];
  options: ImportOptionValues;
  /** Whether the undamaged seed imports cleanly with these options. */
  clean: boolean;
}

const MUTATIONS = ['flip', 'truncate', 'utf8', 'huge', 'splice'] as const;
type Mutation = (typeof MUTATIONS)[number];

/** Damages `bytes` (seeded): what was done, in words, and the result. */
function mutate(bytes: Buffer, kind: Mutation): { what: string; out: Buffer } {
  const at = (): number => int(Math.max(1, bytes.length));
  switch (kind) {
    case 'flip': {
      const out = Buffer.from(bytes);
      const n = 1 + int(8);
      for (let i = 0; i < n; i++) {
        const p = at();
        out[p] = out[p]! ^ (1 + int(255));
      }
      return { what: `${n} bytes flipped`, out };
    }
    case 'truncate': {
      const cut = 1 + int(Math.max(1, bytes.length - 1));
      return { what: `cut to ${cut} of ${bytes.length} bytes`, out: bytes.subarray(0, cut) };
    }
    case 'utf8': {
      const bad = [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]][int(5)]!;
      const p = at();
      return { what: `invalid UTF-8 ${bad.map((b) => b.toString(16)).join(' ')} at ${p}`, out: Buffer.concat([bytes.subarray(0, p), Buffer.from(bad), bytes.subarray(p)]) };
    }
    case 'huge': {
      // Inside a field: just after a delimiter near a random place.
      let p = at();
      for (let i = p; i < Math.min(bytes.length, p + 4096); i++) {
        if ([0x2c, 0x22, 0x3a, 0x09].includes(bytes[i]!)) {
          p = i + 1;
          break;
        }
      }
      const len = (256 << 10) + int(4 << 20);
      return { what: `a ${len}-byte field at ${p}`, out: Buffer.concat([bytes.subarray(0, p), Buffer.alloc(len, 0x78), bytes.subarray(p)]) };
    }
    case 'splice': {
      // A piece of the file again somewhere else, or gone: repeated or lost lines and records.
      const a = at();
      const b = Math.min(bytes.length, a + 1 + int(512));
      const to = at();
      return rand() < 0.5
        ? { what: `bytes ${a}-${b} repeated at ${to}`, out: Buffer.concat([bytes.subarray(0, to), bytes.subarray(a, b), bytes.subarray(to)]) }
        : { what: `bytes ${a}-${b} removed`, out: Buffer.concat([bytes.subarray(0, a), bytes.subarray(b)]) };
    }
  }
}

/** What an import left in the project: every row of the tables an import writes, hashed. */
function fingerprint(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    const h = createHash('sha256');
    for (const t of ['models', 'splits', 'configs', 'grid_configs', 'items', 'runs', 'response_columns', 'annotation_events', 'codebooks', 'settings']) {
      for (const r of db.prepare(`SELECT * FROM ${t} ORDER BY 1`).raw(true).iterate())
        h.update(JSON.stringify(r, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('base64') : v)));
    }
    return h.digest('hex');
  } finally {
    db.close();
  }
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

const OPTION_SETS: ImportOptionValues[] = [
  {},
  { model: 'fuzz-model' },
  { config: '16f_151k' },
  { model: 'fuzz-model', config: '16f_151k' },
  { split: 'V1_{duration}' },
  { model: 'fuzz-model', split: 'V1_{duration}' },
];

let work: string;
let baseProject: string;
const seeds: Seed[] = [];

/** Imports `targets` the CLI's way into `project`: ok, or what was thrown. */
async function importInto(project: string, targets: string[], options: ImportOptionValues): Promise<{ ok: true } | { ok: false; err: unknown }> {
  const p = openProject(project);
  try {
    const read = await readImportFiles(targets, options);
    applyImportFiles(p, read, options);
    return { ok: true };
  } catch (err) {
    return { ok: false, err };
  } finally {
    p.close();
  }
}

async function addSeed(dir: string, ...targets: string[]): Promise<void> {
  const full = targets.map((t) => path.join(dir, t));
  let format: ImportFormat;
  try {
    format = await detectFormat(full[0]!);
  } catch {
    return; // not an importable file (a results.json beside its samples log, a README)
  }
  // The options under which the undamaged seed imports: damage then reaches past the first checks.
  for (const options of OPTION_SETS) {
    const project = path.join(work, `probe-${seeds.length}.flipbook`);
    fs.copyFileSync(baseProject, project);
    const r = await importInto(project, full, options);
    if (r.ok) {
      seeds.push({ format, dir, targets, options, clean: true });
      return;
    }
  }
  seeds.push({ format, dir, targets, options: {}, clean: false });
}

beforeAll(async () => {
  work = tempDir('flipbook-fuzz-');
  // The project the damaged files are imported into already holds data.
  // (Under a config key no seed uses, so that a seed's own configs never conflict with it.)
  const baseCsv = path.join(work, 'base.csv');
  fs.writeFileSync(
    baseCsv,
    'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note\n' +
      'b1,base-model,BASE,2f_1k,2,1000,A,A,1,,\nb2,base-model,BASE,2f_1k,2,1000,B,A,0,,\n',
  );
  baseProject = path.join(work, 'base.flipbook');
  const r = flipbook('import', baseCsv, '--project', baseProject);
  if (r.code !== 0) throw new Error(r.stderr);

  // Every file fixture, each with the files beside it (a samples log needs its results.json).
  const fixtures = path.join(repoRoot, 'test/fixtures');
  for (const f of filesUnder(fixtures)) {
    if (/\.(md|txt)$|LICENSE/.test(f)) continue;
    await addSeed(path.dirname(f), path.basename(f));
  }
  // Made here, for the formats without a file fixture.
  const made = path.join(work, 'made');
  fs.mkdirSync(made);
  const cells: Record<string, Record<string, [string, number]>> = {};
  for (let i = 0; i < 40; i++) cells[`q${i}`] = { textonly: [i % 2 ? 'A' : 'B', 0.5], '16f_151k': [i % 3 ? 'A' : 'C', 0.7], '32f_151k': ['A', 0.9] };
  const perItemDir = path.join(made, 'per-item');
  fs.mkdirSync(perItemDir);
  writePerItem(path.join(perItemDir, 'per_item.csv'), 'm1', 'S', cells);
  await addSeed(perItemDir, 'per_item.csv');
  // A release with annotations, as a folder and as a zip.
  const rel = path.join(made, 'rel.flipbook');
  expect(flipbook('import', path.join(perItemDir, 'per_item.csv'), '--project', rel).code).toBe(0);
  const p = openProject(rel);
  try {
    p.annotations.apply({ op: 'setPrimary', model: 'm1', split: 'S', sampleId: 'q1', pathway: 'evidence-missed' }, 'ann');
    p.annotations.apply({ op: 'addSpan', model: 'm1', split: 'S', sampleId: 'q1', span: { startS: 1, endS: 2, label: 'cube' } }, 'ann');
    await exportRelease(p, path.join(made, 'release', 'out'));
    await exportRelease(p, path.join(made, 'release-zip', 'out'), { zip: true });
  } finally {
    p.close();
  }
  await addSeed(path.join(made, 'release'), 'out');
  await addSeed(path.join(made, 'release-zip'), 'out.zip');
  // Video-MME's dataset table (parquet) and MLVU metadata.
  const pq = path.join(made, 'parquet');
  fs.mkdirSync(pq);
  const n = 6;
  const col = (name: string, f: (i: number) => string) => ({ name, data: Array.from({ length: n }, (_, i) => f(i)), type: 'STRING' as const });
  fs.writeFileSync(
    path.join(pq, 'test-00000-of-00001.parquet'),
    new Uint8Array(
      parquetWriteBuffer({
        columnData: [
          col('video_id', (i) => String(Math.floor(i / 3) + 1).padStart(3, '0')),
          col('duration', (i) => (i < 3 ? 'short' : 'medium')),
          col('domain', () => 'Knowledge'),
          col('sub_category', () => 'History'),
          col('videoID', (i) => `yt${Math.floor(i / 3)}`),
          col('question_id', (i) => `${String(Math.floor(i / 3) + 1).padStart(3, '0')}-${(i % 3) + 1}`),
          col('task_type', () => 'Counting Problem'),
          col('question', (i) => `Synthetic question ${i}?`),
          { name: 'options', data: Array.from({ length: n }, () => ['A. one', 'B. two', 'C. three', 'D. four']) },
          col('answer', (i) => 'ABCD'[i % 4]!),
        ],
      }),
    ),
  );
  await addSeed(pq, 'test-00000-of-00001.parquet');
  const meta = path.join(made, 'mlvu-meta');
  fs.mkdirSync(meta);
  fs.writeFileSync(
    path.join(meta, '4_count.json'),
    JSON.stringify(
      Array.from({ length: 8 }, (_, i) => ({
        video: `count_${i}.mp4`,
        duration: 120 + i,
        question: `How many cubes appear (${i})?`,
        candidates: ['1', '2', '3', '4'],
        answer: '2',
        question_type: 'count',
      })),
      null,
      2,
    ),
  );
  await addSeed(meta, '4_count.json');
  // AVSD: a DSTC7 test set, its multi-references and results at three budgets, imported together.
  const avsd = writeAvsdRun(path.join(made, 'avsd'), 4);
  await addSeed(avsd.dir, ...[avsd.reference, avsd.multiref, ...avsd.results.map((r) => r.path)].map((f) => path.basename(f)));
  // The release's pipeline: run_inference.py rows (as Python's json.dumps writes them) and a
  // cache_frames.py cache folder.
  const pipe = path.join(made, 'pipeline');
  fs.mkdirSync(pipe);
  const py = (o: Record<string, unknown>): string =>
    `{${Object.entries(o)
      .map(
        ([k, v]) =>
          `${JSON.stringify(k)}: ${JSON.stringify(v)
            .replace(/,(?=["\d[{-])/g, ', ')
            .replace(/":/g, '": ')}`,
      )
      .join(', ')}}`;
  const row = (i: number) => ({
    sample_id: `00${1 + Math.floor(i / 3)}-${(i % 3) + 1}`,
    video_id: `00${1 + Math.floor(i / 3)}`,
    correct_letter: 'ABCD'[i % 4],
    task_type: 'Counting Problem',
    duration_category: 'short',
    base_pred: 'ABCD'[(i * 7) % 4],
    base_correct: (i * 7) % 4 === i % 4 ? 1 : 0,
    base_option_probs: { A: 0.4, B: 0.3, C: 0.2, D: 0.1 },
    base_margin: 0.1,
    final_pred: 'ABCD'[(i * 7) % 4],
    final_correct: (i * 7) % 4 === i % 4 ? 1 : 0,
    cached_frame_count: 16,
    cached_sample_fps: 16 / 120.5,
    cached_raw_fps: 1.0,
    prompt_style: 'cached',
    inference_mode: 'prob',
    subtitle_mode: 'none',
    subtitle_char_count: 0,
    frame_sampling: 'uniform',
    frame_sampling_seed: 42,
    selected_frame_indices: Array.from({ length: 16 }, (_, k) => k * 8),
  });
  fs.writeFileSync(path.join(pipe, 'qwen25_16f_v1_short.jsonl'), Array.from({ length: 9 }, (_, i) => py(row(i))).join('\n') + '\n');
  await addSeed(pipe, 'qwen25_16f_v1_short.jsonl');
  const cache = path.join(made, 'cache', 'cache');
  for (const v of ['001', '002']) {
    fs.mkdirSync(path.join(cache, v), { recursive: true });
    for (let k = 1; k <= 3; k++) fs.writeFileSync(path.join(cache, v, `frame_${String(k).padStart(6, '0')}.jpg`), 'jpeg');
    fs.writeFileSync(
      path.join(cache, v, 'metadata.json'),
      JSON.stringify({ video_id: v, duration_sec: 3, extracted_fps: 1.0, frame_count: 3, timestamps_sec: [0, 1, 2], width: 640, height: 360 }, null, 2),
    );
  }
  await addSeed(path.join(made, 'cache'), 'cache');
  // Any table read through --columns (no file's shape names this format: the option does).
  const cols = path.join(made, 'columns');
  fs.mkdirSync(cols);
  fs.writeFileSync(
    path.join(cols, 'mine.csv'),
    'qid,budget,resp,gt,opts\n' +
      Array.from({ length: 8 }, (_, i) => `c${i},${i % 2 ? '8f' : '16f'},${'ABC'[i % 3]},${'ABC'[(i * 2) % 3]},"[""x"", ""y"", ""z""]"`).join('\n') +
      '\n',
  );
  const colOptions = { columns: 'sample_id=qid,prediction=resp,answer=gt,options=opts,config=budget', model: 'cols-model', split: 'COLS' };
  const probe = path.join(work, 'probe-columns.flipbook');
  fs.copyFileSync(baseProject, probe);
  seeds.push({ format: 'columns', dir: cols, targets: ['mine.csv'], options: colOptions, clean: (await importInto(probe, [path.join(cols, 'mine.csv')], colOptions)).ok });
}, 300_000);

describe('seeded fuzzing of every registered importer', () => {
  it('has a seed for every registered format', () => {
    const byFormat = Object.fromEntries(IMPORT_FORMATS.map((f) => [f, seeds.filter((s) => s.format === f)]));
    const summary = IMPORT_FORMATS.map((f) => `${f} ${byFormat[f]!.length} (${byFormat[f]!.filter((s) => s.clean).length} clean)`);
    console.log(`importer fuzz seeds: ${summary.join(', ')}`);
    for (const f of IMPORT_FORMATS) expect(byFormat[f]!.length, `no seed for the registered format '${f}': add a fixture under test/fixtures/`).toBeGreaterThan(0);
  });

  it('a damaged file is imported consistently or refused as file:line: field: reason, fast, leaving nothing behind', async () => {
    const stats: Record<string, { ok: number; refused: number; maxMs: number }> = {};
    const failures: string[] = [];
    let trial = 0;
    for (const format of IMPORT_FORMATS) {
      const mine = seeds.filter((s) => s.format === format);
      if (mine.length === 0) continue;
      const st = (stats[format] = { ok: 0, refused: 0, maxMs: 0 });
      // Clean seeds first: damage to a file that imports reaches every part of its reader.
      const pool = mine.some((s) => s.clean) ? mine.filter((s) => s.clean) : mine;
      for (let t = 0; t < TRIALS; t++, trial++) {
        const seed = pool[int(pool.length)]!;
        const kind = MUTATIONS[t % MUTATIONS.length]!;
        const dir = path.join(work, `t${trial}`);
        fs.cpSync(seed.dir, dir, { recursive: true });
        const targets = seed.targets.map((t) => path.join(dir, t));
        const candidates = targets.flatMap((t) => (fs.statSync(t).isDirectory() ? filesUnder(t) : [t]));
        const victim = candidates[int(candidates.length)]!;
        const { what, out } = mutate(fs.readFileSync(victim), kind);
        fs.writeFileSync(victim, out);
        const project = path.join(work, `t${trial}.flipbook`);
        fs.copyFileSync(baseProject, project);
        const before = fingerprint(project);
        const label = `trial ${trial} ${format} ${path.relative(dir, victim) || path.basename(victim)}: ${what}`;
        const t0 = performance.now();
        const r = await importInto(project, targets, seed.options);
        const ms = performance.now() - t0;
        st.maxMs = Math.max(st.maxMs, Math.round(ms));
        if (ms > LIMIT_MS) failures.push(`${label}: took ${Math.round(ms)} ms`);
        if (r.ok) {
          st.ok++;
          // Consistent: the file opens, checks, and its grids and annotations read back.
          const db = new Database(project, { readonly: true });
          expect(db.pragma('integrity_check', { simple: true }), label).toBe('ok');
          db.close();
          const p = openProject(project, { readOnly: true });
          try {
            const grids = p.listGrids();
            p.loadMatrices(grids.map((g) => ({ model: g.model, split: g.split })));
            p.annotations.listStates();
            expect(p.listModels(), label).toContain('base-model');
          } finally {
            p.close();
          }
        } else if (r.err instanceof ImportError) {
          st.refused++;
          if (!/^[^\n]*:\d+: (?:[^\n]*: )?[^\n]+$/s.test(r.err.message.split('\n')[0]!))
            failures.push(`${label}: refusal not file:line: field: reason: ${r.err.message.slice(0, 300)}`);
          if (fingerprint(project) !== before) failures.push(`${label}: refused, but the project changed`);
        } else {
          const e = r.err as Error;
          failures.push(
            `${label}: ${e?.name ?? typeof e}: ${String(e?.message ?? e).slice(0, 300)}\n${String(e?.stack ?? '')
              .split('\n')
              .slice(1, 4)
              .join('\n')}`,
          );
        }
        fs.rmSync(dir, { recursive: true, force: true });
        fs.rmSync(project, { force: true });
      }
    }
    console.log(
      `importer fuzz: ${trial} trials; ${Object.entries(stats)
        .map(([f, s]) => `${f}: ${s.ok} imported, ${s.refused} refused, slowest ${s.maxMs} ms`)
        .join('; ')}`,
    );
    expect(failures).toEqual([]);
  }, 600_000);

  it('through the real CLI: exit 1 with the refusal alone, no stack trace (one damaged file per format)', () => {
    const lines: string[] = [];
    for (const format of IMPORT_FORMATS) {
      const seed = seeds.find((s) => s.format === format && s.clean) ?? seeds.find((s) => s.format === format);
      if (!seed) continue;
      const dir = path.join(work, `cli-${format}`);
      fs.cpSync(seed.dir, dir, { recursive: true });
      const targets = seed.targets.map((t) => path.join(dir, t));
      const victim = fs.statSync(targets[0]!).isDirectory() ? filesUnder(targets[0]!)[0]! : targets[0]!;
      fs.writeFileSync(victim, mutate(fs.readFileSync(victim), 'truncate').out);
      const project = path.join(work, `cli-${format}.flipbook`);
      fs.copyFileSync(baseProject, project);
      const before = fingerprint(project);
      const opts = Object.entries(seed.options).flatMap(([k, v]) => [`--${k === 'groundTruth' ? 'ground-truth' : k}`, String(v)]);
      const r = flipbook('import', ...targets, '--project', project, ...opts);
      lines.push(`${format}: exit ${r.code}`);
      expect([0, 1], `${format}: ${r.stderr}`).toContain(r.code);
      expect(r.stderr, format).not.toMatch(/^\s+at /m);
      if (r.code === 1) {
        expect(r.stderr, format).toMatch(/^flipbook import: \S.*:\d+: /);
        expect(fingerprint(project), format).toBe(before);
      }
    }
    console.log(`importer fuzz, CLI: ${lines.join(', ')}`);
  }, 300_000);
});

#!/usr/bin/env node
// `npm run mutation [-- FOLDER…]`: Stryker (its vitest runner) over each folder whose tests are
// meant to catch mistakes, one run per source file, then ONE JSON object on stdout with each
// folder's score against its threshold and its surviving mutants (docs/testing.md
// "Mutation testing"). Runs are incremental (reports/mutation/<folder>/<file>.incremental.json,
// kept committed as test/mutation-baseline/): a rerun tests only the mutants whose code or tests
// changed. The machine is shared, so Stryker runs niced with one test process unless
// FLIPBOOK_MUTATION_CONCURRENCY says otherwise.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/**
 * Each folder, the tests that judge it (test/mutation.vitest.config.ts) less any it skips, and
 * the share of mutants they must kill. A skipped test can only lower a score, never raise it.
 */
const FOLDERS = [
  { folder: 'shared/engine', tests: 'test/shared/engine', threshold: 90 },
  { folder: 'shared/samplers', tests: 'test/shared/samplers', threshold: 90 },
  // The fault tests kill CLI processes or fill a disk under one: the code they test runs in
  // the CLI's build in a child, which no mutant reaches; here they only open the result, 15 s
  // for each mutant of the store's reads (docs/testing.md).
  {
    folder: 'electron/store',
    tests: 'test/electron/store',
    skip: ['test/electron/store/fault-injection.test.ts', 'test/electron/store/disk-full.test.ts'],
    threshold: 80,
  },
  { folder: 'electron/sync', tests: 'test/electron/sync', threshold: 80 },
  // The seeded fuzz test is left out: it imports every fixture in a top-level hook, which makes
  // most of the folder's mutants "static" (each then runs all 171 tests), and its random trials
  // reach nearly every line, so each mutant would wait for them. The scan-thread test too: its
  // 1–10 MB files took ~20 s for each mutant of the CSV tokenizer, and the thread it tests runs
  // in a worker of its own, where no mutant is active; and the parquet deadline test, whose
  // damaged files wait out the decoding thread's deadline, ~20 s for every mutant an import of
  // a parquet file reaches (docs/testing.md).
  {
    folder: 'electron/importers',
    tests: 'test/electron/importers',
    skip: ['test/electron/importers/fuzz.test.ts', 'test/electron/importers/per-item-scan.test.ts', 'test/electron/importers/parquet-deadline.test.ts'],
    threshold: 80,
  },
  { folder: 'electron/release', tests: 'test/electron/release', threshold: 80 },
];
// Arguments name folders, or single source files inside them (to rerun one file while
// writing its tests: its folder is then reported as partial, with no verdict).
const only = process.argv.slice(2).map((a) => a.replace(/\/+$/, ''));
const folderOf = (a) => FOLDERS.find((x) => x.folder === a || a.startsWith(`${x.folder}/`));
const unknown = only.filter((a) => folderOf(a) === undefined || (a !== folderOf(a).folder && !fs.existsSync(path.join(root, a))));
if (unknown.length > 0) {
  console.error(`npm run mutation: unknown folder or file ${unknown.join(', ')} (known folders: ${FOLDERS.map((f) => f.folder).join(', ')})`);
  process.exit(2);
}
const concurrency = process.env.FLIPBOOK_MUTATION_CONCURRENCY ?? '1';
const reports = path.join(root, 'reports/mutation');
const baselines = path.join(root, 'test/mutation-baseline');
const temp = path.join(root, '.stryker-tmp');
fs.mkdirSync(reports, { recursive: true });
fs.mkdirSync(temp, { recursive: true });
// Stryker runs the tests in a copy of the tree at .stryker-tmp/sandbox-*/; the tests read the
// real fixtures beside the tree (../shared), which from there is .stryker-tmp/shared.
const sharedLink = path.join(temp, 'shared');
if (!fs.existsSync(sharedLink) && fs.existsSync(path.join(root, '../shared'))) fs.symlinkSync(path.join(root, '../shared'), sharedLink, 'dir');

/** Stryker's statuses that count as caught, missed, and not counted (docs/testing.md). */
const CAUGHT = new Set(['Killed', 'Timeout']);
const MISSED = new Set(['Survived', 'NoCoverage']);

/** Folders that hold no source of the tree: dependencies, builds, reports, Stryker's sandboxes. */
const NOT_SOURCE = new Set(['node_modules', '.git', '.stryker-tmp', 'dist', 'reports', 'out']);

/** Every file under `dir` whose name `keep` accepts, sorted, as paths relative to the tree. */
function sourceFiles(dir, keep = (name) => name.endsWith('.ts')) {
  const found = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(path.join(root, d), { withFileTypes: true })) {
      if (NOT_SOURCE.has(e.name)) continue;
      const rel = d === '.' ? e.name : `${d}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (keep(e.name)) found.push(rel);
    }
  };
  walk(dir);
  return found.sort();
}

/**
 * Whether a file compiles to no code (types and comments only): it has no mutants, and Stryker,
 * finding no test related to it, stops with an error instead of reporting none.
 */
function typesOnly(file) {
  const js = ts.transpileModule(fs.readFileSync(path.join(root, file), 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, removeComments: true },
  }).outputText;
  return js.replace(/export\s*\{\s*\};?/g, '').trim() === '';
}

/**
 * Every module some .ts/.tsx file of the tree imports (relative imports, resolved, without the
 * extension). A file outside it is one that nothing imports: a worker thread's entry, which the
 * thread loads by its path (electron/threads/worker-thread.ts). Vitest finds no test related to
 * such a file, and Stryker would stop with an error; runFile runs it against its folder's whole
 * suite instead. The thread runs where no mutant is active, so its mutants survive and count
 * against the score.
 */
const imported = new Set(
  sourceFiles('.', (name) => /\.tsx?$/.test(name) && !name.endsWith('.d.ts')).flatMap((rel) =>
    ts
      .preProcessFile(fs.readFileSync(path.join(root, rel), 'utf8'))
      .importedFiles.filter(({ fileName }) => fileName.startsWith('.'))
      .map(({ fileName }) => path.posix.join(path.posix.dirname(rel), fileName).replace(/\.(js|ts|tsx)$/, '')),
  ),
);

/** Git's id of a blob holding `text` (what `git hash-object` prints for it). */
function blobId(text) {
  const bytes = Buffer.from(text, 'utf8');
  return crypto.createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/**
 * The text of the tree's file `rel`, null if there is none. Read once per run: every report names
 * dozens of the same test files, and the tree does not change while Stryker works in its copy.
 */
const treeTexts = new Map();
function treeText(rel) {
  if (!treeTexts.has(rel)) {
    const file = path.join(root, rel);
    treeTexts.set(rel, fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null);
  }
  return treeTexts.get(rel);
}

/** The text of blob `id`: the file `rel` of the tree if it holds it, else git's copy, else null. */
function blobText(rel, id) {
  const text = treeText(rel);
  if (text !== null && blobId(text) === id) return text;
  const r = spawnSync('git', ['cat-file', 'blob', id], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 });
  return r.status === 0 && blobId(r.stdout) === id ? r.stdout : null;
}

/**
 * The committed baseline (docs/testing.md "The baseline"): each file's incremental report with
 * every source replaced by its git blob id, gzipped, under test/mutation-baseline/. A checkout
 * has no reports/ of its own, and a folder measured from nothing takes hours; from the
 * baseline, Stryker retests only the mutants whose code or covering tests changed.
 */
const baselineOf = (incremental) => path.join(baselines, path.relative(reports, incremental).replace(/\.incremental\.json$/, '.json.gz'));

/** Writes the baseline of an incremental report, unless the baseline is as new as the report. */
function saveBaseline(incremental) {
  const baseline = baselineOf(incremental);
  if (!fs.existsSync(incremental) || (fs.existsSync(baseline) && fs.statSync(baseline).mtimeMs >= fs.statSync(incremental).mtimeMs)) return;
  const report = JSON.parse(fs.readFileSync(incremental, 'utf8'));
  for (const group of [report.files, report.testFiles ?? {}])
    for (const entry of Object.values(group)) {
      if (entry.source === undefined) continue;
      entry.blob = blobId(entry.source);
      delete entry.source;
    }
  // Why a test killed a mutant is not needed to reuse the result, and is most of the size.
  for (const file of Object.values(report.files)) for (const m of file.mutants) delete m.statusReason;
  fs.mkdirSync(path.dirname(baseline), { recursive: true });
  fs.writeFileSync(baseline, zlib.gzipSync(JSON.stringify(report), { level: 9 }));
}

/**
 * The file's incremental report: its own, else the one rebuilt (and written) from its baseline,
 * each source the blob's text (the tree's file, or git's copy), else null. A source git no
 * longer has is left out, so Stryker takes its mutants or tests as new and runs them: never a
 * result reused unchecked.
 */
function priorReport(incremental) {
  if (fs.existsSync(incremental)) return JSON.parse(fs.readFileSync(incremental, 'utf8'));
  const baseline = baselineOf(incremental);
  if (!fs.existsSync(baseline)) return null;
  const report = JSON.parse(zlib.gunzipSync(fs.readFileSync(baseline)).toString('utf8'));
  const left = [];
  let sources = 0;
  for (const group of [report.files, report.testFiles ?? {}])
    for (const [name, entry] of Object.entries(group)) {
      if (entry.blob === undefined) continue;
      const text = blobText(name, entry.blob);
      if (text === null) {
        delete group[name];
        left.push(name);
      } else {
        entry.source = text;
        delete entry.blob;
        sources++;
      }
    }
  report.projectRoot = root;
  fs.writeFileSync(incremental, JSON.stringify(report));
  const unknown = left.length > 0 ? `; not in git, so run as new: ${left.join(', ')}` : '';
  process.stderr.write(`mutation: report rebuilt from ${path.relative(root, baseline)} (${sources} sources${unknown})\n`);
  return report;
}

/**
 * The results of `file`'s prior report when that run saw exactly this code: the file's text and
 * the text of every test file the report names are the tree's, and none of those tests is now
 * left out of the folder's run. Stryker would then reuse every result too, after a dry run of
 * the file's tests (1.5 to 2 minutes an importer file) whose only other findings are a new test
 * reaching a survivor (which can only raise the score) or a killing test that no longer reaches
 * the mutant because other code changed (docs/testing.md "Reuse without a run");
 * FLIPBOOK_MUTATION_RECHECK=1 runs Stryker anyway. Null when the run must be made.
 */
function unchangedResults(report, file, f) {
  if (process.env.FLIPBOOK_MUTATION_RECHECK === '1' || report === null) return null;
  const entry = report.files[file];
  if (entry?.source === undefined || entry.source !== treeText(file)) return null;
  const tests = Object.entries(report.testFiles ?? {});
  for (const [name, test] of tests) if (test.source === undefined || (f.skip ?? []).includes(name) || test.source !== treeText(name)) return null;
  process.stderr.write(
    `mutation: ${file}: its code and its ${tests.length} test files are those its report measured; its ${entry.mutants.length} results reused, Stryker not run\n`,
  );
  return entry.mutants;
}

/**
 * One Stryker run for one source file, with that file's own incremental and JSON reports
 * under reports/mutation/<folder>/. Per file rather than per folder because Stryker writes
 * its reports only when a run ends: a folder of thousands of mutants that is stopped part way
 * keeps every file it finished, and a rerun starts at the first file it did not.
 */
function runFile(f, file, dir) {
  const base = path.join(
    dir,
    file
      .slice(f.folder.length + 1)
      .replace(/\//g, '__')
      .replace(/\.ts$/, ''),
  );
  const report = `${base}.json`;
  const config = {
    ...JSON.parse(fs.readFileSync(path.join(root, 'stryker.config.json'), 'utf8')),
    mutate: [file],
    vitest: { configFile: 'test/mutation.vitest.config.ts', related: imported.has(file.replace(/\.ts$/, '')) },
    concurrency: Number(concurrency),
    incremental: true,
    incrementalFile: path.relative(root, `${base}.incremental.json`),
    jsonReporter: { fileName: path.relative(root, report) },
  };
  delete config['$schema'];
  delete config['//'];
  const configFile = path.join(temp, `${path.basename(dir)}__${path.basename(base)}.config.json`);
  fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
  process.stderr.write(`mutation: ${file} (tests in ${f.tests}, concurrency ${concurrency})…\n`);
  const reused = unchangedResults(priorReport(`${base}.incremental.json`), file, f);
  if (reused !== null) return { mutants: reused, reused: true };
  fs.rmSync(report, { force: true });
  const r = spawnSync('nice', ['-n', '15', process.execPath, path.join(root, 'node_modules/@stryker-mutator/core/bin/stryker.js'), 'run', configFile], {
    cwd: root,
    // Stryker's vitest runner runs the tests in worker threads, whose process.env SQLite never
    // reads: the store's URI filenames must be on in Stryker's own environment
    // (electron/store/sqlite-binding.ts).
    env: { ...process.env, SQLITE_USE_URI: '1', FLIPBOOK_MUTATION_TESTS: f.tests, FLIPBOOK_MUTATION_SKIP: (f.skip ?? []).join(',') },
    stdio: ['ignore', 2, 2],
  });
  if (r.status !== 0) return { error: `stryker exited ${r.status} on ${file}` };
  saveBaseline(`${base}.incremental.json`);
  // A file with nothing to mutate (types only) ends the run without a report.
  if (!fs.existsSync(report)) return { mutants: [] };
  const json = JSON.parse(fs.readFileSync(report, 'utf8'));
  return { mutants: Object.values(json.files).flatMap((data) => data.mutants) };
}

// Reports newer than their baselines (a stopped run's finished files) become baselines first.
for (const rel of fs.readdirSync(reports, { recursive: true })) if (rel.endsWith('.incremental.json')) saveBaseline(path.join(reports, rel));
const out = {};
let failed = false;
for (const f of FOLDERS.filter((x) => only.length === 0 || only.some((a) => folderOf(a) === x))) {
  const whole = only.length === 0 || only.includes(f.folder);
  const files = sourceFiles(f.folder).filter((file) => whole || only.includes(file));
  const dir = path.join(reports, f.folder.replace(/\//g, '-'));
  fs.mkdirSync(dir, { recursive: true });
  const t0 = Date.now();
  const counts = {};
  const survivors = [];
  const errors = [];
  let measured = 0;
  let reused = 0;
  for (const file of files) {
    if (typesOnly(file)) continue;
    measured++;
    const r = runFile(f, file, dir);
    if (r.error !== undefined) {
      errors.push(r.error);
      continue;
    }
    if (r.reused === true) reused++;
    for (const m of r.mutants) {
      counts[m.status] = (counts[m.status] ?? 0) + 1;
      if (MISSED.has(m.status))
        survivors.push(
          `${file}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName} ${m.status}${m.replacement !== undefined ? ` → ${JSON.stringify(m.replacement).slice(0, 80)}` : ''}`,
        );
    }
  }
  const caught = [...CAUGHT].reduce((s, k) => s + (counts[k] ?? 0), 0);
  const missed = [...MISSED].reduce((s, k) => s + (counts[k] ?? 0), 0);
  const score = caught + missed === 0 ? 100 : Math.round((caught / (caught + missed)) * 10000) / 100;
  // A file whose run failed has no score: the folder's cannot be said to meet its threshold.
  const met = whole ? errors.length === 0 && score >= f.threshold : null;
  if (met === false || errors.length > 0) failed = true;
  out[f.folder] = {
    score,
    threshold: f.threshold,
    met,
    ...(whole ? {} : { partial: files }),
    counts,
    minutes: Math.round((Date.now() - t0) / 600) / 100,
    // How many files' results came from their reports unrun (unchangedResults), of how many.
    reused: `${reused} of ${measured} files`,
    ...(errors.length > 0 ? { errors } : {}),
    survivors,
  };
}
process.stdout.write(JSON.stringify(out, null, 2) + '\n');
process.exit(failed ? 1 : 0);

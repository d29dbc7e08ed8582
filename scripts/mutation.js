#!/usr/bin/env node
// `npm run mutation [-- FOLDER…]`: Stryker (its vitest runner) over each folder whose tests are
// meant to catch mistakes, one run per folder, then ONE JSON object on stdout with each
// folder's score against its threshold and its surviving mutants (docs/testing.md
// "Mutation testing"). Runs are incremental (reports/mutation/<folder>.incremental.json): a
// rerun tests only the mutants whose code or tests changed. The machine is shared, so Stryker
// runs niced with one test process unless FLIPBOOK_MUTATION_CONCURRENCY says otherwise.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Each folder, the tests that judge it (test/mutation.vitest.config.ts), and the share of mutants they must kill. */
const FOLDERS = [
  { folder: 'shared/engine', tests: 'test/shared/engine', threshold: 90 },
  { folder: 'shared/samplers', tests: 'test/shared/samplers', threshold: 90 },
  { folder: 'electron/store', tests: 'test/electron/store', threshold: 80 },
  { folder: 'electron/sync', tests: 'test/electron/sync', threshold: 80 },
  { folder: 'electron/importers', tests: 'test/electron/importers', threshold: 80 },
  { folder: 'electron/release', tests: 'test/electron/release', threshold: 80 },
];
const only = process.argv.slice(2);
const unknown = only.filter((f) => !FOLDERS.some((x) => x.folder === f));
if (unknown.length > 0) {
  console.error(`npm run mutation: unknown folder ${unknown.join(', ')} (known: ${FOLDERS.map((f) => f.folder).join(', ')})`);
  process.exit(2);
}
const concurrency = process.env.FLIPBOOK_MUTATION_CONCURRENCY ?? '1';
const reports = path.join(root, 'reports/mutation');
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

const out = {};
let failed = false;
for (const f of FOLDERS.filter((x) => only.length === 0 || only.includes(x.folder))) {
  const slug = f.folder.replace(/\//g, '-');
  const config = {
    ...JSON.parse(fs.readFileSync(path.join(root, 'stryker.config.json'), 'utf8')),
    mutate: [`${f.folder}/**/*.ts`],
    vitest: { configFile: 'test/mutation.vitest.config.ts', related: true },
    concurrency: Number(concurrency),
    incremental: true,
    incrementalFile: `reports/mutation/${slug}.incremental.json`,
    jsonReporter: { fileName: `reports/mutation/${slug}.json` },
  };
  delete config['$schema'];
  delete config['//'];
  const configFile = path.join(temp, `${slug}.config.json`);
  fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
  process.stderr.write(`mutation: ${f.folder} (tests in ${f.tests}, concurrency ${concurrency})…\n`);
  const t0 = Date.now();
  const r = spawnSync('nice', ['-n', '15', process.execPath, path.join(root, 'node_modules/@stryker-mutator/core/bin/stryker.js'), 'run', configFile], {
    cwd: root,
    env: { ...process.env, FLIPBOOK_MUTATION_TESTS: f.tests },
    stdio: ['ignore', 2, 2],
  });
  const report = path.join(root, config.jsonReporter.fileName);
  if (r.status !== 0 || !fs.existsSync(report)) {
    failed = true;
    out[f.folder] = { error: `stryker exited ${r.status}` };
    continue;
  }
  const json = JSON.parse(fs.readFileSync(report, 'utf8'));
  const counts = {};
  const survivors = [];
  for (const [file, data] of Object.entries(json.files)) {
    for (const m of data.mutants) {
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
  const met = score >= f.threshold;
  if (!met) failed = true;
  out[f.folder] = { score, threshold: f.threshold, met, counts, minutes: Math.round((Date.now() - t0) / 600) / 100, survivors };
}
process.stdout.write(JSON.stringify(out, null, 2) + '\n');
process.exit(failed ? 1 : 0);

import fs from 'node:fs';
import { ImportError } from '../../importers/errors';
import { groundTruthCoverage, parseSplitMap } from '../../importers/ground-truth';
import { readImport } from '../../importers/index';
import { openProject } from '../../store/index';
import { emptySummary } from '../../store/import-apply';
import type { Bundle } from '../../team/bundle';
import { applyImportsWithAnnotations, bundleForImport } from '../../team/import-with-annotations';
import type { ImportBatch } from '../../../shared/domain/types';
import { listOption, parseCli, progress, requireOption, toJson } from '../args';
import { UsageError, type CliCommand } from '../command';

const HELP = `Usage: flipbook import <path>... --project P [--format F] [--model M] [--split S] [--config C]
                       [--ground-truth G [--ground-truth-split MAP]] [--json]

Reads result files, benchmark metadata or a release folder/zip into a project (created when
it does not exist). All paths are applied in ONE transaction: if any file is rejected, the
project is left exactly as it was.

Options:
  --project P       the .flipbook project file
  --format F        skip detection (release, per-item-csv, wide-csv, lmms-eval, vlmevalkit,
                    videomme-results, mlvu-results, mlvu-meta, videomme-parquet, …)
  --model M         model name for files that do not name it
  --split S         split name (e.g. V1_short)
  --config C        config key for single-config files (e.g. 16f_151k)
  --ground-truth G  a file giving the answers, for wide CSVs. Its answers reach only the
                    split of the same name, and the release's V1_<duration> splits from a
                    Video-MME v1 source (split videomme); rows without an answer keep
                    correct empty and the summary counts them per split
  --ground-truth-split MAP
                    which split of the source answers which target split, e.g.
                    'videomme=V1_{duration}' or 'videomme_v2=V2_medium' (comma-separated)
  --json            print the summary as JSON

Exit codes: 0 imported, 1 rejected input (file:line: field: reason), 2 bad usage.`;

export const importCommand: CliCommand = {
  help: HELP,
  async run(argv) {
    const { values, positionals } = parseCli(
      argv,
      {
        project: { type: 'string' },
        format: { type: 'string' },
        model: { type: 'string' },
        split: { type: 'string' },
        config: { type: 'string' },
        'ground-truth': { type: 'string' },
        'ground-truth-split': { type: 'string' },
        json: { type: 'boolean' },
      },
      true,
    );
    const projectPath = requireOption('project', values.project);
    if (positionals.length === 0) throw new UsageError('give at least one path to import');
    listOption('config', values.config); // rejects an empty value
    const gtSplit = values['ground-truth-split'];
    if (gtSplit !== undefined) {
      if (values['ground-truth'] === undefined) throw new UsageError('--ground-truth-split needs --ground-truth');
      try {
        parseSplitMap(gtSplit);
      } catch (e) {
        throw new UsageError(`--ground-truth-split: ${(e as Error).message}`);
      }
    }
    for (const p of positionals) if (!fs.existsSync(p)) throw new UsageError(`no such file or folder: ${p}`);

    // Read everything first: a file that fails to parse must not leave a half-made project.
    const batches: ImportBatch[] = [];
    const bundles: Bundle[] = [];
    try {
      for (const p of positionals) {
        progress(`reading ${p} …`);
        const opts = {
          ...(values.format !== undefined && { format: values.format }),
          ...(values.model !== undefined && { model: values.model }),
          ...(values.split !== undefined && { split: values.split }),
          ...(values.config !== undefined && { config: values.config }),
          ...(values['ground-truth'] !== undefined && { groundTruth: values['ground-truth'] }),
          ...(gtSplit !== undefined && { groundTruthSplit: gtSplit }),
        };
        const read = await readImport(p, opts);
        batches.push(...read);
        // A release's annotations/ come in with it (same transaction below).
        const bundle = await bundleForImport(p, read);
        if (bundle) bundles.push(bundle);
      }
    } catch (err) {
      if (err instanceof ImportError) {
        console.error(`flipbook import: ${err.message}`);
        return 1;
      }
      throw err;
    }

    const existed = fs.existsSync(projectPath);
    const project = openProject(projectPath, { create: true });
    let summary: ReturnType<typeof applyImportsWithAnnotations> = { ...emptySummary(), annotations: { bundles: 0, eventsAdded: 0, eventsSkipped: 0 } };
    try {
      progress(`applying ${batches.length} batch(es) to ${projectPath} …`);
      // The importers already applied --model/--split/--config; the store must not re-map.
      summary = applyImportsWithAnnotations(project, batches, bundles);
    } catch (err) {
      project.close();
      // A project this command created and could not fill is removed again: "untouched".
      if (!existed) for (const f of [projectPath, `${projectPath}-wal`, `${projectPath}-shm`]) fs.rmSync(f, { force: true });
      if (err instanceof ImportError) {
        console.error(`flipbook import: ${err.message}`);
        return 1;
      }
      throw err;
    }
    project.close();
    const coverage = values['ground-truth'] !== undefined ? groundTruthCoverage(batches) : null;
    if (values.json) {
      console.log(toJson({ project: projectPath, created: !existed, files: positionals, ...summary, ...(coverage && { groundTruth: coverage }) }));
    } else {
      const lines = [
        `${existed ? 'Updated' : 'Created'} ${projectPath}`,
        `  items:     ${summary.itemsAdded} added, ${summary.itemsUpdated} updated`,
        `  responses: ${summary.responsesAdded} added, ${summary.responsesUpdated} updated`,
        `  configs:   ${summary.configsAdded} added to grids (${summary.configs.join(', ') || '—'})`,
        `  models:    ${summary.models.join(', ') || '—'}`,
        `  splits:    ${summary.splits.join(', ') || '—'}`,
        ...(coverage
          ? [
              `  answers:   ${
                Object.entries(coverage)
                  .map(([split, c]) => `${split} ${c.answered} of ${c.items}${c.answered < c.items ? ` (${c.items - c.answered} without an answer: correct empty)` : ''}`)
                  .join('; ') || '—'
              }`,
            ]
          : []),
        ...(summary.annotations.bundles > 0
          ? [`  annotations: ${summary.annotations.eventsAdded} events added, ${summary.annotations.eventsSkipped} already present`]
          : []),
        ...summary.warnings.map((w) => `  warning: ${w}`),
      ];
      console.log(lines.join('\n'));
    }
    return 0;
  },
};

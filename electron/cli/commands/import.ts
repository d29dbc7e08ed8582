import fs from 'node:fs';
import { ImportError } from '../../importers/errors';
import { createProjectWith, openProject, type Project } from '../../store/index';
import { applyImportFiles, checkImportOptions, readImportFiles, type ImportRun, type ReadFile } from '../../jobs/import-files';
import { IMPORT_OPTIONS, ImportOptionValues, importOptionsHelp } from '../../../shared/api/import-options';
import { parseCli, progress, requireOption, toJson } from '../args';
import { UsageError, type CliCommand } from '../command';

// The options come from the table the app's import form uses too (shared/api/import-options.ts).
const HELP = `Usage: flipbook import <path>... --project P [options] [--json]

Reads result files, benchmark metadata or a release folder/zip into a project (created when
it does not exist). All paths are applied in ONE transaction: if any file is rejected, the
project is left exactly as it was. The app's Import form takes the same options and runs
the same code.

Options:
  --project P         the .flipbook project file
${importOptionsHelp()}
  --json              print the summary as JSON

Exit codes: 0 imported, 1 rejected input (file:line: field: reason), 2 bad usage.`;

export const importCommand: CliCommand = {
  help: HELP,
  async run(argv) {
    const flags: Record<string, { type: 'string' }> = Object.fromEntries(IMPORT_OPTIONS.map((o) => [o.flag, { type: 'string' as const }]));
    const { values, positionals } = parseCli(argv, { project: { type: 'string' }, json: { type: 'boolean' }, ...flags }, true);
    const given = values as Record<string, string | boolean | undefined>;
    const projectPath = requireOption('project', values.project);
    if (positionals.length === 0) throw new UsageError('give at least one path to import');
    const raw = Object.fromEntries(IMPORT_OPTIONS.flatMap((o) => (given[o.flag] === undefined ? [] : [[o.key, given[o.flag]]])));
    const parsed = ImportOptionValues.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const spec = IMPORT_OPTIONS.find((o) => o.key === issue?.path[0]);
      throw new UsageError(`--${spec?.flag ?? String(issue?.path[0])}: ${issue?.message ?? 'invalid'}`);
    }
    const options = parsed.data;
    const problems = checkImportOptions(options);
    if (problems.length > 0) throw new UsageError(problems.join('; '));
    for (const p of positionals) if (!fs.existsSync(p)) throw new UsageError(`no such file or folder: ${p}`);

    // Read everything first: a file that fails to parse must not leave a half-made project.
    let read: ReadFile[];
    try {
      read = await readImportFiles(positionals, options, (_i, p) => progress(`reading ${p} …`));
    } catch (err) {
      if (err instanceof ImportError) {
        console.error(`flipbook import: ${err.message}`);
        return 1;
      }
      throw err;
    }

    const existed = fs.existsSync(projectPath);
    let run: ImportRun;
    const apply = (project: Project): ImportRun => {
      progress(`applying ${read.length} file(s) to ${projectPath} …`);
      return applyImportFiles(project, read, options);
    };
    try {
      if (existed) {
        const project = openProject(projectPath);
        try {
          run = apply(project);
        } finally {
          project.close();
        }
      } else {
        // A new project appears complete with this import, or not at all (killed, rejected):
        // docs/security.md "The project file".
        run = createProjectWith(projectPath, apply);
      }
    } catch (err) {
      if (err instanceof ImportError) {
        console.error(`flipbook import: ${err.message}`);
        return 1;
      }
      throw err;
    }
    const { summary, groundTruth: coverage } = run;
    if (values.json) {
      console.log(
        toJson({
          project: projectPath,
          created: !existed,
          files: positionals,
          ...summary,
          ...(coverage && { groundTruth: coverage }),
          ...(run.matchedGrid && { matchedGrid: run.matchedGrid }),
        }),
      );
    } else {
      const lines = [
        `${existed ? 'Updated' : 'Created'} ${projectPath}`,
        `  items:     ${summary.itemsAdded} added, ${summary.itemsUpdated} updated`,
        `  responses: ${summary.responsesAdded} added, ${summary.responsesUpdated} updated`,
        `  configs:   ${summary.configsAdded} added to grids (${summary.configs.join(', ') || '—'})`,
        `  models:    ${summary.models.join(', ') || '—'}`,
        `  splits:    ${summary.splits.join(', ') || '—'}`,
        ...(summary.videoCachesAdded ? [`  frame caches: ${summary.videoCachesAdded} video(s) (cached pipeline metadata)`] : []),
        ...(coverage
          ? [
              `  answers:   ${
                Object.entries(coverage)
                  .map(([split, c]) => `${split} ${c.answered} of ${c.items}${c.answered < c.items ? ` (${c.items - c.answered} without an answer: correct empty)` : ''}`)
                  .join('; ') || '—'
              }`,
            ]
          : []),
        ...(summary.annotations.bundles > 0 ? [`  annotations: ${summary.annotations.eventsAdded} events added, ${summary.annotations.eventsSkipped} already present`] : []),
        ...(run.matchedGrid ? [`  matched grid: ${run.matchedGrid.join(', ')}`] : []),
        ...summary.warnings.map((w) => `  warning: ${w}`),
      ];
      console.log(lines.join('\n'));
    }
    return 0;
  },
};

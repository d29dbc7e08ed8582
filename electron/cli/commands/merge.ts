import { existsSync } from 'node:fs';
import { openProject } from '../../store/index';
import { mergeBundle } from '../../jobs/merge';
import { parseCli, requireOption, toJson } from '../args';
import { UsageError, type CliCommand } from '../command';

const HELP = `Usage: flipbook merge <bundle> --project P [--json]

Merge another annotator's work into the project. <bundle> is an exported release (folder or
.zip) or just its annotations/ folder. With annotations/events.jsonl every event is added by
its uuid; without it each row of pathways.csv (with its evidence_spans.csv rows) is added as
one snapshot whose id is derived from its content, annotator and key. Existing edits are never
changed, merging the same bundle twice changes nothing, and items where annotators disagree
on the primary pathway go to the conflicts queue.

Options:
  --project P   the .flipbook project file
  --json        print the merge report as JSON

Exit codes: 0 ok, 1 failure (bad bundle: file:line: field: reason; nothing merged), 2 bad usage.`;

export const mergeCommand: CliCommand = {
  help: HELP,
  async run(argv) {
    const { values, positionals } = parseCli(argv, { project: { type: 'string' }, json: { type: 'boolean' } }, true);
    const projectPath = requireOption('project', values.project);
    if (positionals.length !== 1) throw new UsageError('give exactly one bundle (release folder, .zip or annotations/ folder)');
    const bundle = positionals[0]!;
    if (!existsSync(bundle)) {
      console.error(`flipbook merge: bundle not found: ${bundle}`);
      return 1;
    }
    if (!existsSync(projectPath)) {
      console.error(`flipbook merge: project not found: ${projectPath}`);
      return 1;
    }
    const project = openProject(projectPath);
    try {
      const r = await mergeBundle(project, bundle);
      if (values.json) console.log(toJson(r));
      else {
        console.log(`Merged ${r.path} (${r.source === 'events' ? 'event log' : 'pathway/span rows'}) from ${r.annotators.join(', ') || 'nobody'}`);
        console.log(`  ${r.added} added, ${r.skipped} already present, ${r.keysRecomputed} annotations updated; ${r.openConflicts} open conflicts`);
        if (r.codebook && !r.codebook.matchesProject) console.log(`  note: the bundle's codebook ${r.codebook.id} v${r.codebook.version} differs from the project's`);
      }
      return 0;
    } finally {
      project.close();
    }
  },
};

import { existsSync } from 'node:fs';
import { exportRelease } from '../../release/export';
import { openProject, ProjectLockedError, ProjectNotWritableError, type Project } from '../../store/index';
import { parseCli } from '../args';
import { UsageError, type CliCommand } from '../command';

const HELP = `Usage: flipbook export --project P --out DIR [--matched-grid c1,c2,…] [--include-text] [--zip] [--json]

Writes the project in the layout of the public video-mme-scalegrid release
(docs/release-format.md): labels/per_item.csv, labels/derived.csv,
labels/aggregated/*, annotations/*, provenance/configs.json and a generated README.md.
The output is deterministic: exporting the same project twice gives the same bytes except
README.md's date line.

Options:
  --project P          the project file (*.flipbook); must exist (exit 1 otherwise)
  --out DIR            the folder to write (replaced if it is empty or a previous export)
  --matched-grid L     comma-separated config keys; default: the project's setting,
                       else Flipbook's proposed matched grid
  --include-text       also write labels/items.csv with benchmark question text
                       (Video-MME and MLVU forbid redistributing it: off by default)
  --zip                write one byte-stable zip file (DIR, with .zip appended if missing)
  --json               print the export summary as JSON

Exit codes: 0 ok, 1 export failed, 2 bad usage.`;

export const exportCommand: CliCommand = {
  help: HELP,
  async run(argv) {
    const { values } = parseCli(argv, {
      project: { type: 'string' },
      out: { type: 'string' },
      'matched-grid': { type: 'string' },
      'include-text': { type: 'boolean' },
      zip: { type: 'boolean' },
      json: { type: 'boolean' },
    });
    if (!values.project) throw new UsageError('--project is required');
    if (!values.out) throw new UsageError('--out is required');
    if (!existsSync(values.project)) {
      console.error(`flipbook export: project not found: ${values.project}`);
      return 1;
    }
    let matchedGrid: string[] | undefined;
    if (values['matched-grid'] !== undefined) {
      matchedGrid = values['matched-grid'].split(',').map((s) => s.trim());
      if (matchedGrid.some((k) => k === '')) throw new UsageError('--matched-grid has an empty config key');
    }
    // Export only reads: a project open in another Flipbook, or in a folder this user cannot
    // write, is exported from a read-only connection (docs/security.md "Read-only locations").
    let project: Project;
    try {
      project = openProject(values.project);
    } catch (err) {
      if (!(err instanceof ProjectLockedError || err instanceof ProjectNotWritableError)) throw err;
      console.error(`flipbook export: ${err.message}: exporting from a read-only connection`);
      project = openProject(values.project, { readOnly: true });
    }
    try {
      const summary = await exportRelease(project, values.out, {
        ...(matchedGrid ? { matchedGrid } : {}),
        includeText: values['include-text'] === true,
        zip: values.zip === true,
      });
      if (values.json) {
        console.log(JSON.stringify(summary, null, 2));
      } else {
        const c = summary.counts;
        console.log(`Exported ${summary.zip ? 'zip' : 'release folder'} ${summary.path}`);
        console.log(
          `  ${c.cells} cells, ${c.items} items, ${c.models} models, ${c.splits} splits, ${c.configs} configs, ` +
            `${c.grids} grids, ${c.derivedRows} derived rows (${c.excluded} excluded), ${c.pathwayRows} annotations, ${c.spanRows} spans`,
        );
        console.log(`  matched grid: ${summary.matchedGrid.join(', ') || '(none)'}; ${summary.files.length} files`);
      }
      return 0;
    } finally {
      project.close();
    }
  },
};

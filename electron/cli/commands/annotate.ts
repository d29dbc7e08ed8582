import { existsSync } from 'node:fs';
import os from 'node:os';
import { openProject } from '../../store/index';
import { annotate, AnnotateError, readAnnotateCsv, type AnnotateRow } from '../../jobs/annotate';
import { parseCli, requireOption, toJson } from '../args';
import { UsageError, type CliCommand } from '../command';

const HELP = `Usage: flipbook annotate --project P --model M --split S --item ID [--tag ID]… [--primary ID]
                         [--status S] [--transition A>B] [--note TEXT] [--confidence N]
                         [--annotator NAME] [--json]
       flipbook annotate --project P --from-csv FILE [--annotator NAME] [--json]

Annotation edits from a script, through the same store path as the app: each change (a tag,
the primary pathway, the status, …) is one event in the project's event log, exactly as if it
had been made by hand, so it syncs and merges the same way. --from-csv applies many rows in
ONE transaction; its header names some of: model, split, item (required), annotator, tags
(separated by ;), primary, status, transition, note, confidence — an empty cell leaves that
field as it is. Every row is checked first (model, split and item exist, pathways are in the
codebook, the transition's configs belong to the grid, confidence 1–5): a bad row is reported
as file:line: field: reason and nothing changes.

Options:
  --project P         the .flipbook project file
  --model M, --split S, --item ID   the item to annotate
  --tag ID            add a pathway tag (repeatable)
  --primary ID        set the primary pathway (also tags it)
  --status S          todo, in_progress, done, skipped or needs_review
  --transition A>B    the config transition the label is about, e.g. 16f_151k>64f_151k
  --note TEXT         the notes
  --confidence N      1 to 5
  --annotator NAME    whose edit it is (default: $FLIPBOOK_ANNOTATOR, else the login name);
                      to sync, it must be your PostgreSQL role name
  --from-csv FILE     many rows, one transaction
  --json              print the result as JSON

Exit codes: 0 ok, 1 refused (nothing changed), 2 bad usage.`;

export const annotateCommand: CliCommand = {
  help: HELP,
  async run(argv) {
    const { values } = parseCli(argv, {
      project: { type: 'string' },
      model: { type: 'string' },
      split: { type: 'string' },
      item: { type: 'string' },
      tag: { type: 'string', multiple: true },
      primary: { type: 'string' },
      status: { type: 'string' },
      transition: { type: 'string' },
      note: { type: 'string' },
      confidence: { type: 'string' },
      annotator: { type: 'string' },
      'from-csv': { type: 'string' },
      json: { type: 'boolean' },
    });
    const projectPath = requireOption('project', values.project);
    const annotator = values.annotator ?? process.env.FLIPBOOK_ANNOTATOR ?? os.userInfo().username;
    const csv = values['from-csv'];
    const single = ['model', 'split', 'item', 'tag', 'primary', 'status', 'transition', 'note', 'confidence'] as const;
    if (csv !== undefined && single.some((k) => values[k] !== undefined)) throw new UsageError('--from-csv cannot be combined with --model/--split/--item or edit options');
    if (!existsSync(projectPath)) {
      console.error(`flipbook annotate: project not found: ${projectPath}`);
      return 1;
    }
    let rows: { row: AnnotateRow; where: string }[];
    if (csv !== undefined) {
      if (!existsSync(csv)) {
        console.error(`flipbook annotate: file not found: ${csv}`);
        return 1;
      }
      rows = await readAnnotateCsv(csv, annotator);
    } else {
      const row: AnnotateRow = {
        model: requireOption('model', values.model),
        split: requireOption('split', values.split),
        item: requireOption('item', values.item),
        annotator,
      };
      if (values.tag?.length) row.tags = values.tag;
      for (const k of ['primary', 'status', 'transition', 'note', 'confidence'] as const) if (values[k] !== undefined) row[k] = values[k];
      rows = [{ row, where: 'annotate' }];
    }
    const project = openProject(projectPath);
    try {
      const r = annotate(project, rows);
      if (values.json) console.log(toJson(r));
      else console.log(`${r.events} edit${r.events === 1 ? '' : 's'} on ${r.rows} item${r.rows === 1 ? '' : 's'} by ${r.annotators.join(', ')}`);
      return 0;
    } catch (err) {
      if (err instanceof AnnotateError) {
        console.error(`flipbook annotate: ${err.message}; nothing changed`);
        return 1;
      }
      throw err;
    } finally {
      project.close();
    }
  },
};

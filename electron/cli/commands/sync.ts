import { existsSync } from 'node:fs';
import { openProject } from '../../store/index';
import { promptPassword } from '../prompt';
import { runSync } from '../../sync/sync';
import { syncNotes, SyncRefusedError } from '../../sync/sync-report';
import { ServerUrlError } from '../../sync/connect';
import { parseCli, requireOption, toJson } from '../args';
import { UsageError, type CliCommand } from '../command';

const HELP = `Usage: flipbook sync --project P --server postgresql://USER@HOST[:PORT]/DB[?sslmode=…] --space NAME [--json]

One sync round with a team space on a PostgreSQL server: pushes this project's annotation
events the server lacks and pulls the ones the project lacks (by event uuid: running it twice,
or again after an interrupted run, changes nothing more). The first sync against a database
creates Flipbook's schema; the first sync of a space records the project's release identity
(sha256 of labels/per_item.csv as exported) and its codebook versions, and later syncs
refuse a project whose data differs, or whose codebook has other content under a version
number the space has, saying what differs. Codebook versions the project lacks are pulled. Only your own events are pushed: the server accepts events
whose annotator is your PostgreSQL role name. Responses are never sent.

The password comes from PGPASSWORD, ~/.pgpass or a prompt (on a terminal) and is never
stored; TLS follows the URL's sslmode (disable, prefer, require, verify-ca, verify-full).
See docs/team-sync.md.

Options:
  --project P     the .flipbook project file
  --server URL    postgresql://user@host[:port]/database (no password in the URL)
  --space NAME    the space (letters, digits, . _ -)
  --json          print the report as JSON

Prints pushed / pulled / conflicts (items whose annotators disagree on the primary pathway,
as in the Team view), and what was set aside: rows of the space that break Flipbook's event
rules or its clock bound, or have a kind this Flipbook does not know (kept in the project, not
applied), and edits of yours the server will not take (each by uuid, with why). An edit whose
uuid the space holds for someone else's event is pushed again under a new uuid, and said so;
edits stamped more than 5 minutes after the server's time (a clock that is ahead) wait.
Waits on the server are bounded: a lock for 10 s, a statement for 60 s.

Exit codes: 0 ok, 1 failure (offline, refused, no rights: nothing lost, sync again), 2 bad usage.`;

export const syncCommand: CliCommand = {
  help: HELP,
  async run(argv) {
    const { values } = parseCli(argv, { project: { type: 'string' }, server: { type: 'string' }, space: { type: 'string' }, json: { type: 'boolean' } });
    const projectPath = requireOption('project', values.project);
    const server = requireOption('server', values.server);
    const space = requireOption('space', values.space);
    if (!existsSync(projectPath)) {
      console.error(`flipbook sync: project not found: ${projectPath}`);
      return 1;
    }
    const project = openProject(projectPath);
    try {
      const r = await runSync(project, { server, space, prompt: process.stdin.isTTY ? promptPassword : null });
      if (values.json) console.log(toJson(r));
      else {
        if (r.schema && r.schema.to !== r.schema.from) {
          console.log(
            r.schema.from === 0
              ? `Created Flipbook's schema on ${r.server} (version ${r.schema.to})`
              : `Updated Flipbook's schema on ${r.server} from version ${r.schema.from} to ${r.schema.to}`,
          );
        }
        if (r.spaceCreated) console.log(`Created space ${r.space} with this project's release and codebook`);
        const cb = r.codebooks;
        if (cb.pushed || cb.pulled) console.log(`Codebook versions: ${cb.pushed} stored in the space, ${cb.pulled} added to this project`);
        console.log(`Synced ${r.space} on ${r.server} as ${r.role}: pushed ${r.pushed}, pulled ${r.pulled}, conflicts ${r.conflicts} (${r.openConflicts} open)`);
        for (const [who, n] of Object.entries(r.notPushed)) {
          console.log(`  note: ${n} edit${n === 1 ? '' : 's'} made here by '${who}' ${n === 1 ? 'is' : 'are'} not pushed: the server takes only ${r.role}'s own events`);
        }
        for (const line of syncNotes(r)) console.log(line);
      }
      return 0;
    } catch (err) {
      if (err instanceof ServerUrlError) throw new UsageError(err.message);
      if (err instanceof SyncRefusedError) {
        console.error(`flipbook sync: ${err.message}`);
        return 1;
      }
      throw err;
    } finally {
      project.close();
    }
  },
};

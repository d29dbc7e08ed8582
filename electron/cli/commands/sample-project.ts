import { createSampleProject } from '../../sample/create-sample-project';
import { parseCli } from '../args';
import { UsageError, type CliCommand } from '../command';

const HELP = `Usage: flipbook sample-project --out DIR [--force] [--json]

Writes the embedded sample project: DIR/sample.flipbook and its generated videos under
DIR/media/ (the project's media root). A dozen synthetic videos with timed, countable
events; questions derived from their schedule (assets/sample/schedule.json); three
simulated models whose answers come from the frames each budget's sampler picks.

Videos are rendered with ffmpeg once and cached (FLIPBOOK_SAMPLE_CACHE, default
~/.cache/flipbook/sample-media); later runs copy them. An existing sample.flipbook is kept
unless --force is given.

Options:
  --out DIR   target folder (created if missing)
  --force     rebuild sample.flipbook even if it exists (its annotations are lost)
  --json      print the summary as JSON

Exit codes: 0 ok, 1 failure (e.g. ffmpeg missing), 2 bad usage.`;

export const sampleProjectCommand: CliCommand = {
  help: HELP,
  async run(argv) {
    const { values } = parseCli(argv, { out: { type: 'string' }, force: { type: 'boolean' }, json: { type: 'boolean' } });
    if (!values.out) throw new UsageError('--out is required');
    const tty = process.stderr.isTTY;
    const started = Date.now();
    const result = await createSampleProject(values.out, {
      force: values.force ?? false,
      onProgress: tty ? (done, total) => process.stderr.write(`\rrendering sample videos ${done}/${total}`) : undefined,
    });
    if (tty && result.media.source === 'encoded') process.stderr.write('\n');
    const summary = {
      project: result.projectPath,
      mediaRoot: result.mediaRoot,
      videos: result.media.files.length,
      media: result.media.source,
      projectWritten: result.projectWritten,
      models: result.import?.models ?? null,
      items: result.import ? result.import.itemsAdded : null,
      responses: result.import ? result.import.responsesAdded : null,
      seconds: Math.round((Date.now() - started) / 10) / 100,
    };
    if (values.json) {
      console.log(JSON.stringify(summary));
    } else {
      console.log(
        result.projectWritten
          ? `wrote ${summary.project}: ${String(summary.items)} items, ${String(summary.responses)} responses of ${summary.models?.join(', ') ?? ''}`
          : `kept existing ${summary.project} (use --force to rebuild)`,
      );
      console.log(`media root ${summary.mediaRoot}: ${summary.videos} videos (${summary.media}) in ${summary.seconds} s`);
    }
    return 0;
  },
};

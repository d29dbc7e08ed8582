import fs from 'node:fs';
import path from 'node:path';
import { parseCli } from '../args';
import { UsageError, type CliCommand } from '../command';
import { DEFAULT_RENDERER_DIR, startWebMode } from '../../server/start-web-mode';

const HELP = `Usage: flipbook serve --project P [--port N] [--create] [--renderer DIR]

The web mode: serves the app (the built renderer) and its backend over HTTP on 127.0.0.1
only, with a random token that every request must carry. Prints the URL to open:
  http://127.0.0.1:PORT/?token=…
Build the renderer first with \`npx vite build\` (npm start does it for you).

Options:
  --project P     the project file (*.flipbook)
  --create        create the project when it does not exist
  --port N        port to listen on (default 0 = any free port)
  --renderer DIR  built renderer folder (default dist/renderer)

Stops on Ctrl+C (SIGINT) or SIGTERM, closing the database cleanly.
Exit codes: 0 ok, 1 failure (e.g. project locked, port in use), 2 bad usage.`;

export const serveCommand: CliCommand = {
  help: HELP,
  async run(argv) {
    const { values } = parseCli(argv, { project: { type: 'string' }, port: { type: 'string' }, create: { type: 'boolean' }, renderer: { type: 'string' } });
    if (!values.project) throw new UsageError('--project is required');
    const port = values.port === undefined ? 0 : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0…65535, got ${values.port}`);
    const staticDir = values.renderer ? path.resolve(values.renderer) : DEFAULT_RENDERER_DIR;
    if (!fs.existsSync(path.join(staticDir, 'index.html'))) {
      console.error(`flipbook serve: warning: no renderer build in ${staticDir} (run \`npx vite build\`); only the API is served`);
    }
    const web = await startWebMode({ project: values.project, create: values.create ?? false, port, staticDir });
    const info = web.backend.project();
    if (info?.readOnly) console.error(`flipbook serve: ${values.project} is open in another Flipbook: serving it read-only`);
    // The URL goes to stdout on its own line so scripts and tests can read it.
    console.log(`Flipbook web mode: ${web.server.url}`);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await web.close();
    return 0;
  },
};

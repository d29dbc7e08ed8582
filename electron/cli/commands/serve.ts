import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { lockHolder } from '../../store/index';
import { parseCli } from '../args';
import { UsageError, type CliCommand } from '../command';
import { startWebMode } from '../../server/start-web-mode';
import { DEFAULT_RENDERER_DIR, ensureRendererBuilt } from '../../server/renderer-build';
import { createUserSettings } from '../../settings/user-settings';

const HELP = `Usage: flipbook serve --project P [--port N] [--new-token] [--create] [--renderer DIR]

The web mode: serves the app (the built renderer) and its backend over HTTP on 127.0.0.1
only, with a random token that every request must carry. Prints the URL to open:
  http://127.0.0.1:PORT/?token=…
The port and token are remembered per project (in Flipbook's settings on this machine) and
used again next time when the port is free, so a tab opened before a restart keeps working.
When the renderer is not built yet (a fresh checkout), it is built first with Vite.

Options:
  --project P     the project file (*.flipbook)
  --create        create the project when it does not exist
  --port N        port to listen on (0 = any free port; default: this project's last port)
  --new-token     make a new token instead of reusing this project's last one
  --renderer DIR  built renderer folder (default dist/renderer, or $FLIPBOOK_RENDERER_DIR)

Stops on Ctrl+C (SIGINT) or SIGTERM, closing the database cleanly.
Exit codes: 0 ok, 1 failure (e.g. project locked, port in use), 2 bad usage.`;

export const serveCommand: CliCommand = {
  help: HELP,
  async run(argv) {
    const { values } = parseCli(argv, {
      project: { type: 'string' },
      port: { type: 'string' },
      'new-token': { type: 'boolean' },
      create: { type: 'boolean' },
      renderer: { type: 'string' },
    });
    if (!values.project) throw new UsageError('--project is required');
    const port = values.port === undefined ? undefined : Number(values.port);
    if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new UsageError(`--port must be 0…65535, got ${values.port}`);
    const staticDir = values.renderer ? path.resolve(values.renderer) : DEFAULT_RENDERER_DIR;
    const unbuilt = ensureRendererBuilt(staticDir, (line) => console.error(`flipbook serve: ${line}`));
    if (unbuilt !== null) console.error(`flipbook serve: warning: ${unbuilt}; only the API is served`);

    const project = path.resolve(values.project);
    const settings = createUserSettings();
    const last = settings.serveMemory(project);
    const token = !values['new-token'] && last ? last.token : randomBytes(24).toString('base64url');
    const web = await startWebMode({
      project,
      create: values.create ?? false,
      ...(port !== undefined ? { port } : last ? { preferredPort: last.port } : {}),
      staticDir,
      token,
      userSettings: settings,
    });
    if (port === undefined && last && web.server.port !== last.port) {
      console.error(`flipbook serve: port ${last.port} (used last time) is taken; listening on ${web.server.port}`);
    }
    settings.rememberServe(project, { port: web.server.port, token: web.server.token });
    const info = web.backend.project();
    if (info?.readOnly) {
      const why = lockHolder(info.path) !== null ? 'is open in another Flipbook' : 'cannot be written by this user (read-only folder or file)';
      console.error(`flipbook serve: ${values.project} ${why}: serving it read-only`);
    }
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

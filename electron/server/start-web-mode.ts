/** Wires the backend to the HTTP bridge: what `flipbook serve` and the tests start. */
import { createBackend, type Backend } from '../api/create-backend';
import type { UserSettingsStore } from '../settings/user-settings';
import { startWebServer, type WebServer } from './http-server';
import { createMediaResponder } from './media-route';
import { DEFAULT_RENDERER_DIR } from './renderer-build';

export { DEFAULT_RENDERER_DIR };

export interface WebMode {
  server: WebServer;
  backend: Backend;
  close(): Promise<void>;
}

export interface WebModeOptions {
  project?: string;
  create?: boolean;
  port?: number;
  /** Listen here when it is free, else on any free port (`port` wins when given). */
  preferredPort?: number;
  staticDir?: string | null;
  token?: string;
  /** This machine's Flipbook settings: the annotator name and recent projects, as in the desktop app. */
  userSettings?: UserSettingsStore;
}

const inUse = (e: unknown) => e instanceof Error && (e as NodeJS.ErrnoException).code === 'EADDRINUSE';

export async function startWebMode(opts: WebModeOptions): Promise<WebMode> {
  let emit: WebServer['emit'] = () => {};
  const settings = opts.userSettings;
  const backend = createBackend({
    emit: (event, payload) => emit(event, payload),
    mediaUrl: (id) => `/media/${id}`,
    // A second Flipbook on the same project gets it read-only with the reason shown, rather than nothing.
    readOnlyWhenLocked: true,
    ...(settings && {
      recent: { list: () => settings.get().recent, add: (p: string) => settings.addRecent(p) },
      annotator: {
        get: () => settings.get().annotator,
        set: (name: string) => {
          settings.setAnnotator(name);
          return name;
        },
      },
    }),
  });
  try {
    if (opts.project) backend.open(opts.project, { create: opts.create ?? false });
    const listen = (port: number) =>
      startWebServer({
        handlers: backend.handlers,
        staticDir: opts.staticDir === undefined ? DEFAULT_RENDERER_DIR : opts.staticDir,
        port,
        ...(opts.token ? { token: opts.token } : {}),
        media: createMediaResponder(backend.media),
      });
    let server: WebServer;
    if (opts.port === undefined && opts.preferredPort !== undefined) {
      server = await listen(opts.preferredPort).catch((e: unknown) => {
        if (inUse(e)) return listen(0);
        throw e;
      });
    } else server = await listen(opts.port ?? 0);
    emit = server.emit;
    return {
      server,
      backend,
      close: async () => {
        await server.close();
        backend.close();
      },
    };
  } catch (e) {
    backend.close();
    throw e;
  }
}

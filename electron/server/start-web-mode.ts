/** Wires the backend to the HTTP bridge: what `flipbook serve` and the tests start. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBackend, type Backend } from '../services/create-backend';
import { startWebServer, type WebServer } from './http-server';
import { createMediaResponder } from './media-route';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_RENDERER_DIR = path.resolve(HERE, '../../dist/renderer');

export interface WebMode {
  server: WebServer;
  backend: Backend;
  close(): Promise<void>;
}

export async function startWebMode(opts: { project?: string; create?: boolean; port?: number; staticDir?: string | null; token?: string }): Promise<WebMode> {
  let emit: WebServer['emit'] = () => {};
  const backend = createBackend({
    emit: (event, payload) => emit(event, payload),
    mediaUrl: (id) => `/media/${id}`,
    // A second Flipbook on the same project gets it read-only with the reason shown, rather than nothing.
    readOnlyWhenLocked: true,
  });
  if (opts.project) backend.open(opts.project, { create: opts.create ?? false });
  const server = await startWebServer({
    handlers: backend.handlers,
    staticDir: opts.staticDir === undefined ? DEFAULT_RENDERER_DIR : opts.staticDir,
    port: opts.port ?? 0,
    ...(opts.token ? { token: opts.token } : {}),
    media: createMediaResponder(backend.media),
  });
  emit = server.emit;
  return {
    server,
    backend,
    close: async () => {
      await server.close();
      backend.close();
    },
  };
}

/**
 * The backend in its own thread (Electron: electron/shell/main.ts starts it through
 * backend-client.ts), so menus, IPC and media:// streaming in the main process never wait on
 * SQLite, an overview computation or an import. It runs the same createBackend as the web
 * mode; what only main can do (dialogs, the menu's recent list, the settings file) goes back
 * to main as messages, and every media id it hands out is announced so main's media:// handler
 * can stream it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import * as z from 'zod';
import type { EventName } from '../../shared/api/contract';
import { createBackend } from '../api/create-backend';
import { dispatch } from '../api/dispatch';
import { toApiErrorWhole } from '../../shared/api/service-error';
import { createMediaRegistry, type MediaRegistry } from '../media/media-registry';
import { FromHost, HostStart, ToHost } from './backend-host-protocol';
import type { PickKind } from '../api/backend-session';

const port = parentPort;
if (!port) throw new Error('backend-host.ts runs as a worker thread');
const post = (m: FromHost): void => port.postMessage(m);

const start = HostStart.parse(z.object({ data: z.unknown() }).parse(workerData).data);
let recent = start.recent;
let annotator = start.annotator;

const inner = createMediaRegistry();
const media: MediaRegistry = {
  register(p) {
    const id = inner.register(p);
    post({ type: 'media', id, path: p });
    return id;
  },
  unregister: (id) => inner.unregister(id),
  pathOf: (id) => inner.pathOf(id),
  clear() {
    inner.clear();
    post({ type: 'media-clear' });
  },
};

let nextPick = 0;
const picks = new Map<number, (paths: string[]) => void>();

const backend = createBackend(
  {
    emit: (event: EventName, payload: unknown) => post({ type: 'event', event, payload }),
    mediaUrl: (id) => `media://m/${id}`,
    pickPaths: (kind: PickKind) =>
      new Promise<string[]>((resolve) => {
        const id = nextPick++;
        picks.set(id, resolve);
        post({ type: 'pick', id, kind });
      }),
    recent: {
      list: () => recent,
      add: (p) => {
        recent = [p, ...recent.filter((x) => x !== p)].slice(0, 10);
        post({ type: 'recent-add', path: p });
      },
    },
    annotator: {
      get: () => annotator,
      set: (name) => {
        annotator = name;
        post({ type: 'annotator-set', name });
        return name;
      },
    },
    readOnlyWhenLocked: true,
  },
  { media },
);

port.on('message', (raw: unknown) => {
  const parsed = ToHost.safeParse(raw);
  if (!parsed.success) return;
  const m = parsed.data;
  if (m.type === 'picked') {
    picks.get(m.id)?.(m.paths);
    picks.delete(m.id);
  } else if (m.type === 'call') {
    void dispatch(backend.handlers, m.name, m.payload).then((result) => post({ type: 'result', id: m.id, result }));
  } else if (m.type === 'open') {
    try {
      backend.open(m.path);
      post({ type: 'result', id: m.id, result: { ok: true, value: null } });
    } catch (e) {
      post({ type: 'result', id: m.id, result: { ok: false, error: toApiErrorWhole(e) } });
    }
  } else {
    // Closing: the project is closed cleanly (WAL checkpointed, lock released) before main exits.
    backend.close();
    post({ type: 'result', id: m.id, result: { ok: true, value: null } });
    port.close();
  }
});

/**
 * Main's side of the backend thread (backend-host.ts): handlers with the contract's shape that
 * forward each call to the thread and answer its Result, a media registry mirrored from the
 * ids the thread announces (so media:// streams from main without asking it), and the host
 * hooks only main can serve (dialogs, the settings file behind the menu's recent list).
 */
import { OP_NAMES, type EventName, type OpName } from '../../shared/api/contract';
import { startWorkerThread, workerEntry } from '../threads/worker-thread';
import { FromHost, type HostStart, type ToHost } from './backend-host-protocol';
import type { PickKind } from '../api/backend-session';
import type { Handlers } from '../api/dispatch';
import { ServiceError } from '../../shared/api/service-error';
import type { MediaRegistry } from '../media/media-registry';
import { enableUriFilenames } from '../store/sqlite-binding';

export interface BackendClientHooks {
  emit(event: EventName, payload: unknown): void;
  pickPaths(kind: PickKind): Promise<string[]>;
  recentAdded(path: string): void;
  annotatorSet(name: string): void;
}

export interface BackendClient {
  handlers: Handlers;
  /** Ids the thread handed out, for media:// (read-only here: only the thread registers). */
  media: MediaRegistry;
  open(file: string): Promise<void>;
  /** Closes the project cleanly in the thread, then ends it. */
  close(): Promise<void>;
}

export function startBackendHost(start: HostStart, hooks: BackendClientHooks): BackendClient {
  let nextId = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const paths = new Map<string, string>();
  let ended: Error | null = null;

  // The store first loads in the thread; SQLite's URI setting can only come from here.
  enableUriFilenames();
  const thread = startWorkerThread(workerEntry(import.meta.url, 'backend-host'), start, {
    message(raw) {
      const parsed = FromHost.safeParse(raw);
      if (!parsed.success) return;
      const m = parsed.data;
      switch (m.type) {
        case 'result': {
          const w = waiting.get(m.id);
          waiting.delete(m.id);
          if (!w) return;
          if (m.result.ok) w.resolve(m.result.value);
          else w.reject(new ServiceError(m.result.error.code, m.result.error.message));
          return;
        }
        case 'event':
          hooks.emit(m.event as EventName, m.payload);
          return;
        case 'media':
          paths.set(m.id, m.path);
          return;
        case 'media-clear':
          paths.clear();
          return;
        case 'pick':
          void hooks.pickPaths(m.kind).then(
            (p) => send({ type: 'picked', id: m.id, paths: p }),
            () => send({ type: 'picked', id: m.id, paths: [] }),
          );
          return;
        case 'recent-add':
          hooks.recentAdded(m.path);
          return;
        case 'annotator-set':
          hooks.annotatorSet(m.name);
          return;
      }
    },
    exit(code, error) {
      ended = error ?? new Error(`the backend thread stopped (exit code ${code})`);
      for (const w of waiting.values()) w.reject(new ServiceError('internal', ended.message));
      waiting.clear();
    },
  });
  const send = (m: ToHost) => thread.post(m);
  const request = (m: (id: number) => ToHost): Promise<unknown> => {
    if (ended) return Promise.reject(new ServiceError('internal', ended.message));
    const id = nextId++;
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      send(m(id));
    });
  };

  const handlers = Object.fromEntries(OP_NAMES.map((name: OpName) => [name, (req: unknown) => request((id) => ({ type: 'call', id, name, payload: req }))])) as unknown as Handlers;

  return {
    handlers,
    media: {
      register: () => {
        throw new Error('media ids are registered by the backend thread');
      },
      unregister: (id) => void paths.delete(id),
      pathOf: (id) => paths.get(id) ?? null,
      clear: () => paths.clear(),
    },
    open: async (file) => {
      await request((id) => ({ type: 'open', id, path: file }));
    },
    close: async () => {
      if (ended) return;
      await request((id) => ({ type: 'close', id })).catch(() => undefined);
      thread.terminate();
    },
  };
}

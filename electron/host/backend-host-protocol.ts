/**
 * Messages between the Electron main process and the backend it runs in a worker thread
 * (backend-host.ts; docs/architecture.md "Long work is a job"). Main keeps the window, menus,
 * dialogs, IPC and media:// streaming; the thread owns the project, SQLite and the jobs. Both
 * sides parse what they receive with these schemas.
 */
import * as z from 'zod';
import { ERROR_CODES } from '../../shared/api/contract';

const PickKind = z.enum(['open-project', 'new-project', 'import', 'export-dir', 'media-root']);

/** Main → backend thread. */
export const ToHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('call'), id: z.number().int(), name: z.string(), payload: z.unknown() }),
  z.object({ type: z.literal('open'), id: z.number().int(), path: z.string().min(1) }),
  z.object({ type: z.literal('close'), id: z.number().int() }),
  z.object({ type: z.literal('picked'), id: z.number().int(), paths: z.array(z.string()) }),
]);
export type ToHost = z.infer<typeof ToHost>;

/** Backend thread → main. */
export const FromHost = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('result'),
    id: z.number().int(),
    result: z.union([
      z.object({ ok: z.literal(true), value: z.unknown() }),
      z.object({ ok: z.literal(false), error: z.object({ code: z.enum(ERROR_CODES), message: z.string() }) }),
    ]),
  }),
  z.object({ type: z.literal('event'), event: z.string(), payload: z.unknown() }),
  /** A media id the renderer may now ask media:// for (sent before the answer that carries its URL). */
  z.object({ type: z.literal('media'), id: z.string(), path: z.string() }),
  z.object({ type: z.literal('media-clear') }),
  z.object({ type: z.literal('pick'), id: z.number().int(), kind: PickKind }),
  z.object({ type: z.literal('recent-add'), path: z.string() }),
  z.object({ type: z.literal('annotator-set'), name: z.string() }),
]);
export type FromHost = z.infer<typeof FromHost>;

/** What the thread starts with (workerData): this machine's settings as main read them. */
export const HostStart = z.object({ recent: z.array(z.string()), annotator: z.string().nullable() });
export type HostStart = z.infer<typeof HostStart>;

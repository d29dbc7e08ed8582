/**
 * The sandboxed preload: exposes exactly one function per contract operation and one `on`
 * for events on window.flipbook — never ipcRenderer itself. Bundled to CommonJS by
 * scripts/build-electron.js (sandboxed preloads cannot load ES modules); it imports only
 * the zod-free name lists so the bundle stays small.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { EVENT_NAME_LIST, IPC_EVENT_CHANNEL, IPC_PREFIX, OP_NAME_LIST } from '../../shared/api/names';

const bridge: Record<string, unknown> = {};
for (const name of OP_NAME_LIST) {
  bridge[name] = (req: unknown) => ipcRenderer.invoke(`${IPC_PREFIX}${name}`, req);
}
const known = new Set<string>(EVENT_NAME_LIST);
bridge.on = (event: string, listener: (payload: unknown) => void): (() => void) => {
  if (!known.has(event)) throw new Error(`unknown event ${event}`);
  const wrapped = (_e: IpcRendererEvent, msg: { event: string; payload: unknown }) => {
    if (msg && msg.event === event) listener(msg.payload);
  };
  ipcRenderer.on(IPC_EVENT_CHANNEL, wrapped);
  return () => {
    ipcRenderer.removeListener(IPC_EVENT_CHANNEL, wrapped);
  };
};

contextBridge.exposeInMainWorld('flipbook', bridge);

/**
 * Registers one ipcMain handler per contract operation. Each checks that the message comes
 * from our window's main frame on app://, parses the payload as unknown with the
 * operation's schema (dispatch) and answers a Result; nothing is thrown across IPC.
 */
import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import { ipcChannel, OP_NAMES, type Result } from '../../shared/api/contract';
import { dispatch, type Handlers } from '../api/dispatch';
import { isAppUrl } from './harden';

export function senderAllowed(event: Pick<IpcMainInvokeEvent, 'senderFrame'>, allowedWebContentsIds: () => number[], senderId: number): boolean {
  const frame = event.senderFrame;
  if (!frame || frame.parent !== null) return false;
  if (!isAppUrl(frame.url)) return false;
  return allowedWebContentsIds().includes(senderId);
}

/** What registration needs of Electron's ipcMain (tests pass a plain recording object). */
export type IpcRegistry = Pick<IpcMain, 'handle' | 'removeHandler'>;

export function registerIpcHandlers(ipcMain: IpcRegistry, handlers: Handlers, allowedWebContentsIds: () => number[]): () => void {
  for (const name of OP_NAMES) {
    ipcMain.handle(ipcChannel(name), async (event, payload: unknown): Promise<Result<unknown>> => {
      if (!senderAllowed(event, allowedWebContentsIds, event.sender.id)) {
        return { ok: false, error: { code: 'forbidden', message: 'IPC from an unexpected sender' } };
      }
      return dispatch(handlers, name, payload);
    });
  }
  return () => {
    for (const name of OP_NAMES) ipcMain.removeHandler(ipcChannel(name));
  };
}

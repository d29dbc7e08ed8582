/**
 * The Electron main process: one hardened window on app://, the backend (createBackend, in
 * its own thread: electron/host/backend-host.ts, so menus, IPC and media:// never wait on SQLite
 * or an import) behind the contract's IPC handlers, media over media://, native menus and dialogs,
 * recent projects, single-instance lock, remembered window state and a clean DB close on quit.
 */
import { app, BrowserWindow, dialog, ipcMain, Menu, session, type OpenDialogOptions } from 'electron';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { IPC_EVENT_CHANNEL } from '../../shared/api/names';
import type { PickKind } from '../api/create-backend';
import { startBackendHost } from '../host/backend-client';
import { registerIpcHandlers } from './register-handlers';
import { hardenApp, hardenSession, APP_ORIGIN } from './harden';
import { handleProtocols, registerSchemesAsPrivileged } from './protocols';
import { buildMenu, type MenuCommand } from './menu';
import { webPreferences } from './web-preferences';
import { createUserSettings, defaultUserDataDir } from '../settings/user-settings';

const HERE = path.dirname(fileURLToPath(import.meta.url));
// dist/electron/main.js → dist/renderer
const RENDERER_DIR = process.env.FLIPBOOK_RENDERER_DIR ?? path.resolve(HERE, '../renderer');

registerSchemesAsPrivileged();
hardenApp(app);
// One settings folder for the app and the CLI's web mode (annotator name, recent projects).
app.setPath('userData', defaultUserDataDir());

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  let win: BrowserWindow | null = null;
  const prefs = createUserSettings(app.getPath('userData'));

  const backend = startBackendHost(
    { recent: prefs.get().recent, annotator: prefs.get().annotator },
    {
      emit: (event, payload) => win?.webContents.send(IPC_EVENT_CHANNEL, { event, payload }),
      pickPaths: (kind) => pick(kind),
      recentAdded: (p) => (prefs.addRecent(p), refreshMenu()),
      annotatorSet: (name) => prefs.setAnnotator(name),
    },
  );

  async function pick(kind: PickKind): Promise<string[]> {
    if (!win) return [];
    const projectFilter = [{ name: 'Flipbook project', extensions: ['flipbook'] }];
    if (kind === 'new-project') {
      const r = await dialog.showSaveDialog(win, { title: 'New project', filters: projectFilter, defaultPath: 'audit.flipbook' });
      return r.canceled || !r.filePath ? [] : [r.filePath];
    }
    const byKind: Record<Exclude<PickKind, 'new-project'>, OpenDialogOptions> = {
      'open-project': { title: 'Open project', filters: projectFilter, properties: ['openFile'] },
      import: { title: 'Import results or metadata', properties: ['openFile', 'openDirectory', 'multiSelections'] },
      'export-dir': { title: 'Export release to…', properties: ['openDirectory', 'createDirectory'] },
      'media-root': { title: 'Folder with the videos', properties: ['openDirectory'] },
    };
    const r = await dialog.showOpenDialog(win, byKind[kind]);
    return r.canceled ? [] : r.filePaths;
  }

  const send = (command: MenuCommand) => win?.webContents.send(IPC_EVENT_CHANNEL, { event: 'menu:command', payload: { command } });

  function refreshMenu() {
    Menu.setApplicationMenu(
      buildMenu({
        recent: prefs.get().recent,
        send,
        isMac: process.platform === 'darwin',
        openRecent: (p) => {
          backend.open(p).then(
            () => win?.webContents.send(IPC_EVENT_CHANNEL, { event: 'data:changed', payload: { scope: 'project', item: null } }),
            (e: unknown) => dialog.showErrorBox('Cannot open project', e instanceof Error ? e.message : String(e)),
          );
        },
      }),
    );
  }

  function createWindow() {
    const state = prefs.get().window;
    win = new BrowserWindow({
      width: state?.width ?? 1400,
      height: state?.height ?? 900,
      ...(state?.x !== undefined && state?.y !== undefined ? { x: state.x, y: state.y } : {}),
      title: 'Flipbook',
      show: false,
      webPreferences: webPreferences(path.join(HERE, 'preload.cjs')),
    });
    if (state?.maximized) win.maximize();
    win.once('ready-to-show', () => win?.show());
    const saveBounds = () => {
      if (!win || win.isDestroyed()) return;
      prefs.update({ window: { ...win.getNormalBounds(), maximized: win.isMaximized() } });
    };
    win.on('close', saveBounds);
    win.on('closed', () => (win = null));
    void win.loadURL(`${APP_ORIGIN}/index.html`);
  }

  app.on('second-instance', () => {
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
  });

  void app.whenReady().then(() => {
    hardenSession(session.defaultSession);
    handleProtocols(session.defaultSession, RENDERER_DIR, backend.media);
    registerIpcHandlers(ipcMain, backend.handlers, () => (win ? [win.webContents.id] : []));
    const initial = process.env.FLIPBOOK_PROJECT ?? prefs.get().recent[0];
    if (initial) {
      backend.open(initial).then(
        () => win?.webContents.send(IPC_EVENT_CHANNEL, { event: 'data:changed', payload: { scope: 'project', item: null } }),
        (e: unknown) => console.error(`flipbook: could not reopen ${initial}: ${e instanceof Error ? e.message : String(e)}`),
      );
    }
    refreshMenu();
    createWindow();
  });

  app.on('window-all-closed', () => app.quit());
  // The database is closed in the backend thread (WAL checkpointed, lock released) before the process exits.
  let closed = false;
  app.on('will-quit', (e) => {
    if (closed) return;
    e.preventDefault();
    void backend.close().finally(() => {
      closed = true;
      app.quit();
    });
  });
}

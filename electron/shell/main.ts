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
  /** The window dialogs and menu commands belong to: the focused one, else the newest. */
  let win: BrowserWindow | null = null;
  const windows = new Set<BrowserWindow>();
  // Every window hears every event (data:changed above all: an edit in one is shown in the others).
  const broadcast = (message: unknown) => {
    for (const w of windows) if (!w.isDestroyed()) w.webContents.send(IPC_EVENT_CHANNEL, message);
  };
  const prefs = createUserSettings(app.getPath('userData'));

  const backend = startBackendHost(
    { recent: prefs.get().recent, annotator: prefs.get().annotator },
    {
      emit: (event, payload) => broadcast({ event, payload }),
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
        newWindow: () => createWindow(),
        openRecent: (p) => {
          backend.open(p).then(
            () => broadcast({ event: 'data:changed', payload: { scope: 'project', item: null } }),
            (e: unknown) => dialog.showErrorBox('Cannot open project', e instanceof Error ? e.message : String(e)),
          );
        },
      }),
    );
  }

  function createWindow() {
    const state = prefs.get().window;
    const w = new BrowserWindow({
      width: state?.width ?? 1400,
      height: state?.height ?? 900,
      // A second window is offset from the first, so both can be seen.
      ...(state?.x !== undefined && state?.y !== undefined ? { x: state.x + 32 * windows.size, y: state.y + 32 * windows.size } : {}),
      title: 'Flipbook',
      show: false,
      webPreferences: webPreferences(path.join(HERE, 'preload.cjs')),
    });
    windows.add(w);
    win = w;
    if (state?.maximized && windows.size === 1) w.maximize();
    w.once('ready-to-show', () => w.show());
    w.on('focus', () => (win = w));
    const saveBounds = () => {
      if (w.isDestroyed()) return;
      prefs.update({ window: { ...w.getNormalBounds(), maximized: w.isMaximized() } });
    };
    w.on('close', saveBounds);
    w.on('closed', () => {
      windows.delete(w);
      if (win === w) win = [...windows].pop() ?? null;
    });
    void w.loadURL(`${APP_ORIGIN}/index.html`);
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
    registerIpcHandlers(ipcMain, backend.handlers, () => [...windows].filter((w) => !w.isDestroyed()).map((w) => w.webContents.id));
    const initial = process.env.FLIPBOOK_PROJECT ?? prefs.get().recent[0];
    if (initial) {
      backend.open(initial).then(
        () => broadcast({ event: 'data:changed', payload: { scope: 'project', item: null } }),
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

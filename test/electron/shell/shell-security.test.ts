/**
 * The Electron shell's security settings, tested on the objects the app uses rather than its
 * source text (no Electron binary is needed): the window's webPreferences as exported, the IPC
 * registration with a plain object standing in for ipcMain (it records handle() calls) in
 * front of the real backend, the hardening listeners on plain event emitters, and the preload
 * bundle run with a recording contextBridge.
 */
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { buildSync } from 'esbuild';
import type { App, IpcMainInvokeEvent, Session, WebContents } from 'electron';
import { afterAll, describe, expect, it } from 'vitest';
import { ipcChannel, OP_NAMES, type OpName, type Result } from '../../../shared/api/contract';
import { IPC_PREFIX, OP_NAME_LIST } from '../../../shared/api/names';
import { registerIpcHandlers, type IpcRegistry } from '../../../electron/shell/register-handlers';
import { hardenApp, hardenSession, hardenWebContents, isAppUrl } from '../../../electron/shell/harden';
import { createBackend } from '../../../electron/api/create-backend';
import { webPreferences } from '../../../electron/shell/web-preferences';
import { tempDir } from '../../temp-dir';

const root = path.resolve(import.meta.dirname, '../../..');
const tmp = tempDir('flipbook-shell-');

describe('the window', () => {
  it('is isolated, sandboxed, without Node in the page, its workers and frames, and without <webview>', () => {
    const prefs = webPreferences('/app/dist/electron/preload.cjs');
    expect(prefs).toMatchObject({
      preload: '/app/dist/electron/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
    });
    // Nothing that loosens them (Electron's own names for the dangerous switches).
    for (const key of ['experimentalFeatures', 'enableBlinkFeatures', 'additionalArguments', 'partition']) expect(prefs).not.toHaveProperty(key);
  });
});

type Invoke = (event: IpcMainInvokeEvent, payload: unknown) => Promise<Result<unknown>>;

/** A plain object with ipcMain's two registration methods, recording what is registered. */
function recordingIpcMain(): IpcRegistry & { handlers: Map<string, Invoke>; removed: string[] } {
  const handlers = new Map<string, Invoke>();
  const removed: string[] = [];
  return {
    handlers,
    removed,
    handle(channel: string, listener: (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown) {
      if (handlers.has(channel)) throw new Error(`second handler for ${channel}`); // as Electron does
      handlers.set(channel, listener as Invoke);
    },
    removeHandler(channel: string) {
      removed.push(channel);
      handlers.delete(channel);
    },
  };
}

const event = (url: string, opts: { senderId?: number; subFrame?: boolean; noFrame?: boolean } = {}): IpcMainInvokeEvent =>
  ({
    sender: { id: opts.senderId ?? 7 },
    senderFrame: opts.noFrame ? null : { url, parent: opts.subFrame ? { url } : null },
  }) as unknown as IpcMainInvokeEvent;

describe('IPC handlers (registerIpcHandlers in front of the real backend)', () => {
  const backend = createBackend({ emit: () => undefined, mediaUrl: (id) => `media://m/${id}` });
  afterAll(() => backend.close());
  const ipc = recordingIpcMain();
  const unregister = registerIpcHandlers(ipc, backend.handlers, () => [7]);
  const call = (name: OpName, ev: IpcMainInvokeEvent, payload: unknown) => ipc.handlers.get(ipcChannel(name))!(ev, payload);
  const file = path.join(tmp, 'shell.flipbook');
  const APP = 'app://flipbook/index.html#/queue';

  it("registers exactly one handler per contract operation, on the preload's channel names", () => {
    expect([...ipc.handlers.keys()].sort()).toEqual(OP_NAMES.map((n) => ipcChannel(n)).sort());
    expect([...ipc.handlers.keys()].sort()).toEqual(OP_NAME_LIST.map((n) => `${IPC_PREFIX}${n}`).sort());
  });

  it("refuses, without running the operation, a sender that is not our window's top frame on app://", async () => {
    const forbidden = { ok: false, error: { code: 'forbidden', message: 'IPC from an unexpected sender' } };
    const req = { path: file, create: true };
    for (const ev of [
      event('https://evil.example/'),
      event('file:///etc/passwd'),
      event('app://other/index.html'),
      event(APP, { subFrame: true }),
      event(APP, { senderId: 8 }),
      event(APP, { noFrame: true }),
    ]) {
      expect(await call('project:open', ev, req)).toEqual(forbidden);
    }
    expect(backend.project()).toBeNull();
    expect(fs.existsSync(file)).toBe(false);
  });

  it("parses the payload with the contract's schema, then runs the operation for our window", async () => {
    expect(await call('project:open', event(APP), { path: 5 })).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    expect(backend.project()).toBeNull();
    const opened = await call('project:open', event(APP), { path: file, create: true });
    expect(opened).toMatchObject({ ok: true, value: { path: file } });
    expect(backend.project()).not.toBeNull();
    expect(await call('project:info', event(APP), {})).toMatchObject({ ok: true, value: { path: file } });
  });

  it('unregisters every handler it registered', () => {
    unregister();
    expect(ipc.removed.sort()).toEqual(OP_NAMES.map((n) => ipcChannel(n)).sort());
    expect(ipc.handlers.size).toBe(0);
  });
});

type FakeContents = WebContents & { openHandler: (() => { action: string }) | null };

/** A web contents stand-in: Electron's listeners are plain EventEmitter ones. */
function contents(): FakeContents {
  const ee = new EventEmitter() as EventEmitter & { openHandler: (() => { action: string }) | null; setWindowOpenHandler(h: () => { action: string }): void };
  ee.openHandler = null;
  ee.setWindowOpenHandler = (h) => (ee.openHandler = h);
  return ee as unknown as FakeContents;
}

function prevented(wc: WebContents, name: string, url?: string): boolean {
  let p = false;
  (wc as unknown as EventEmitter).emit(name, { preventDefault: () => (p = true) }, url);
  return p;
}

describe('hardening', () => {
  it('every web contents the app creates refuses navigation off app://, new windows and <webview>', () => {
    const app = new EventEmitter();
    hardenApp(app as unknown as App);
    const wc = contents();
    app.emit('web-contents-created', {}, wc);
    for (const name of ['will-navigate', 'will-redirect']) {
      expect(prevented(wc, name, 'https://example.com/'), name).toBe(true);
      expect(prevented(wc, name, 'file:///etc/passwd'), name).toBe(true);
      expect(prevented(wc, name, 'app://flipbook/index.html#/team'), name).toBe(false);
    }
    expect(wc.openHandler?.()).toEqual({ action: 'deny' });
    expect(prevented(wc, 'will-attach-webview')).toBe(true);
    // Contents hardened on their own behave the same.
    const other = contents();
    hardenWebContents(other);
    expect(prevented(other, 'will-navigate', 'http://127.0.0.1/')).toBe(true);
  });

  it('denies every permission request and check', () => {
    type RequestHandler = (wc: unknown, permission: string, cb: (ok: boolean) => void) => void;
    type CheckHandler = (...a: unknown[]) => boolean;
    const seen: { request: RequestHandler | null; check: CheckHandler | null } = { request: null, check: null };
    const session = {
      setPermissionRequestHandler: (h: RequestHandler) => (seen.request = h),
      setPermissionCheckHandler: (h: CheckHandler) => (seen.check = h),
    };
    hardenSession(session as unknown as Session);
    for (const permission of ['media', 'notifications', 'geolocation', 'clipboard-read']) {
      const answers: boolean[] = [];
      seen.request!({}, permission, (ok) => answers.push(ok));
      expect(answers, permission).toEqual([false]);
      expect(seen.check!({}, permission, 'app://flipbook'), permission).toBe(false);
    }
  });

  it('counts only app://flipbook as the app', () => {
    expect(isAppUrl('app://flipbook/index.html#/queue')).toBe(true);
    expect(isAppUrl('app://flipbook.evil/index.html')).toBe(false);
    expect(isAppUrl('https://example.com/')).toBe(false);
    expect(isAppUrl('not a url')).toBe(false);
  });
});

describe('the preload', () => {
  it('exposes one function per contract operation and on(), each invoking its own channel — never ipcRenderer', async () => {
    // The preload bundled as scripts/build-electron.js does (CommonJS, electron external), run
    // with a recording contextBridge and ipcRenderer.
    const out = buildSync({ entryPoints: [path.join(root, 'electron/shell/preload.ts')], bundle: true, format: 'cjs', platform: 'node', external: ['electron'], write: false });
    const invoked: [string, unknown][] = [];
    const ipcRenderer = { invoke: async (ch: string, req: unknown) => (invoked.push([ch, req]), 'answer'), on: () => undefined, removeListener: () => undefined };
    const exposed = new Map<string, Record<string, unknown>>();
    const contextBridge = { exposeInMainWorld: (key: string, api: Record<string, unknown>) => exposed.set(key, api) };
    const requireStub = (id: string) => {
      if (id === 'electron') return { contextBridge, ipcRenderer };
      throw new Error(`the preload requires '${id}': a sandboxed preload may only require electron`);
    };
    new Function('require', 'module', 'exports', out.outputFiles[0]!.text)(requireStub, { exports: {} }, {});

    expect([...exposed.keys()]).toEqual(['flipbook']);
    const api = exposed.get('flipbook')!;
    expect(Object.keys(api).sort()).toEqual([...OP_NAME_LIST, 'on'].sort());
    expect(Object.values(api)).not.toContain(ipcRenderer);
    expect(Object.values(api).every((v) => typeof v === 'function')).toBe(true);
    expect(await (api['project:info'] as (r: unknown) => Promise<unknown>)({ x: 1 })).toBe('answer');
    expect(invoked).toEqual([[`${IPC_PREFIX}project:info`, { x: 1 }]]);
    expect(() => (api.on as (e: string, l: () => void) => void)('not-an-event', () => undefined)).toThrow(/unknown event not-an-event/);
  });
});

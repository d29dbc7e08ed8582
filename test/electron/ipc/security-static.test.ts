/**
 * Where no Electron binary exists, the shell's security settings are checked in its source:
 * the window's webPreferences, the navigation/new-window/webview/permission denials, and
 * that every IPC handler goes through the sender check and the contract's schemas.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OP_NAMES } from '../../../shared/api/contract';
import { OP_NAME_LIST } from '../../../shared/api/names';
import { senderAllowed } from '../../../electron/ipc/register-handlers';
import { isAppUrl } from '../../../electron/security/harden';

const root = path.resolve(import.meta.dirname, '../../..');
const read = (p: string) => fs.readFileSync(path.join(root, p), 'utf8');

describe('Electron shell security (static)', () => {
  it('creates the window isolated, sandboxed, without Node', () => {
    const main = read('electron/main.ts');
    expect(main).toMatch(/contextIsolation:\s*true/);
    expect(main).toMatch(/sandbox:\s*true/);
    expect(main).toMatch(/nodeIntegration:\s*false/);
    expect(main).toMatch(/webviewTag:\s*false/);
    expect(main).toContain('requestSingleInstanceLock');
    expect(main).toContain("app.on('will-quit', () => backend.close())");
    expect(main).not.toContain('file://');
  });

  it('denies navigation, new windows, webviews and permissions', () => {
    const harden = read('electron/security/harden.ts');
    expect(harden).toMatch(/setWindowOpenHandler\(\(\) => \(\{ action: 'deny' \}\)\)/);
    expect(harden).toMatch(/'will-navigate'[\s\S]*?if \(!isAppUrl\(url\)\) event\.preventDefault\(\)/);
    expect(harden).toMatch(/'will-attach-webview'[\s\S]*?preventDefault/);
    expect(harden).toMatch(/setPermissionRequestHandler\([^)]*\) => callback\(false\)/);
    expect(isAppUrl('app://flipbook/index.html#/queue')).toBe(true);
    expect(isAppUrl('https://example.com/')).toBe(false);
    expect(isAppUrl('app://other/index.html')).toBe(false);
    expect(isAppUrl('file:///etc/passwd')).toBe(false);
  });

  it('accepts IPC only from our window\'s top frame on app://', () => {
    const top = { senderFrame: { url: 'app://flipbook/index.html', parent: null } } as never;
    const sub = { senderFrame: { url: 'app://flipbook/index.html', parent: {} } } as never;
    const web = { senderFrame: { url: 'https://evil.example/', parent: null } } as never;
    expect(senderAllowed(top, () => [7], 7)).toBe(true);
    expect(senderAllowed(top, () => [7], 8)).toBe(false);
    expect(senderAllowed(sub, () => [7], 7)).toBe(false);
    expect(senderAllowed(web, () => [7], 7)).toBe(false);
  });

  it('the preload exposes exactly the contract\'s operations, never ipcRenderer', () => {
    expect([...OP_NAME_LIST].sort()).toEqual([...OP_NAMES].sort());
    const preload = read('electron/preload.ts');
    expect(preload).toContain("contextBridge.exposeInMainWorld('flipbook', bridge)");
    expect(preload).not.toMatch(/exposeInMainWorld\([^)]*ipcRenderer/);
    const reg = read('electron/ipc/register-handlers.ts');
    expect(reg).toMatch(/senderAllowed\(event/);
    expect(reg).toMatch(/dispatch\(handlers, name, payload\)/);
  });
});

/**
 * The main window's webPreferences (docs/security.md): isolated, sandboxed, no Node in the
 * page or its workers, no <webview>. Kept apart from main.ts so tests import the very object
 * the window is made with, without an Electron binary.
 */
import type { WebPreferences } from 'electron';

export function webPreferences(preload: string): WebPreferences {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webviewTag: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    spellcheck: false,
  };
}

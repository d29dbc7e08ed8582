import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createUserSettings, defaultUserDataDir, SETTINGS_FILE } from '../../../electron/settings/user-settings';
import { tempDir } from '../../temp-dir';

const root = tempDir('flipbook-settings-');

describe("Flipbook's per-machine settings", () => {
  it('two processes (the app and a serve) do not undo each other’s changes', () => {
    const dir = path.join(root, 'two');
    const app = createUserSettings(dir);
    const serve = createUserSettings(dir);
    app.setAnnotator('Ada');
    serve.rememberServe('/p/a.flipbook', { port: 40123, token: 'A'.repeat(32) });
    app.addRecent('/p/a.flipbook');
    const again = createUserSettings(dir).get();
    expect(again.annotator).toBe('Ada');
    expect(again.recent).toEqual(['/p/a.flipbook']);
    expect(createUserSettings(dir).serveMemory('/p/a.flipbook')).toEqual({ port: 40123, token: 'A'.repeat(32) });
    // The file holds serve tokens: this user only.
    if (process.platform !== 'win32') expect(fs.statSync(path.join(dir, SETTINGS_FILE)).mode & 0o077).toBe(0);
  });

  it('a corrupt file or a malformed token falls back to defaults', () => {
    const dir = path.join(root, 'corrupt');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, SETTINGS_FILE), '{"annotator": 7');
    expect(createUserSettings(dir).get()).toMatchObject({ annotator: null, recent: [], serve: {} });
    fs.writeFileSync(path.join(dir, SETTINGS_FILE), JSON.stringify({ serve: { '/p': { port: 1, token: 'short' } } }));
    expect(createUserSettings(dir).serveMemory('/p')).toBeNull();
  });

  it('lives in $FLIPBOOK_USER_DATA, else the platform config folder for Flipbook', () => {
    expect(defaultUserDataDir({ FLIPBOOK_USER_DATA: '/x/y' })).toBe(path.resolve('/x/y'));
    if (process.platform === 'linux') expect(defaultUserDataDir({ XDG_CONFIG_HOME: '/cfg' })).toBe('/cfg/Flipbook');
  });
});

/**
 * The web mode's file chooser (docs/security.md "Web mode"): it lists only inside the user's
 * home, the project's folder and the media root, on real paths, and never a hidden entry or a
 * link that leads outside them. Through the HTTP bridge it needs the token like every request.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackend, type Backend } from '../../../electron/api/create-backend';
import { dispatch } from '../../../electron/api/dispatch';
import { startWebMode, type WebMode } from '../../../electron/server/start-web-mode';
import { openProject } from '../../../electron/store/project';
import { tempDir } from '../store/helpers';

describe('files:list', () => {
  let root: string;
  let backend: Backend;
  let web: WebMode;
  const list = async (p: string | null) => dispatch(backend.handlers, 'files:list', { path: p });

  beforeAll(async () => {
    root = fs.realpathSync(tempDir('fb-files-'));
    fs.mkdirSync(path.join(root, 'proj/sub'), { recursive: true });
    fs.mkdirSync(path.join(root, 'media'));
    fs.mkdirSync(path.join(root, 'elsewhere'));
    fs.writeFileSync(path.join(root, 'proj/results.jsonl'), '{}\n');
    fs.writeFileSync(path.join(root, 'proj/.secret'), 'x');
    fs.writeFileSync(path.join(root, 'elsewhere/private.txt'), 'x');
    fs.symlinkSync(path.join(root, 'elsewhere'), path.join(root, 'proj/escape'));
    fs.symlinkSync(path.join(root, 'media'), path.join(root, 'proj/videos'));
    const file = path.join(root, 'proj/p.flipbook');
    const p = openProject(file, { create: true });
    p.setSetting('mediaRoot', path.join(root, 'media'));
    p.close();
    backend = createBackend({ emit: () => {}, mediaUrl: (id) => `/media/${id}` });
    backend.open(file);
    web = await startWebMode({ project: file, staticDir: null });
  });
  afterAll(async () => {
    backend?.close();
    await web?.close();
  });

  it('opens at the project folder: folders first, no hidden entries, a link shown only when it stays inside', async () => {
    const r = await list(null);
    if (!r.ok) throw new Error(r.error.message);
    const v = r.value as { path: string; parent: string | null; roots: string[]; entries: { name: string; kind: string }[] };
    expect(v.path).toBe(path.join(root, 'proj'));
    expect(v.roots).toContain(path.join(root, 'proj'));
    expect(v.roots).toContain(path.join(root, 'media'));
    const names = v.entries.map((e) => `${e.name}:${e.kind}`);
    // Folders first (the project's own SQLite companions, -wal and the lock, are among the files).
    expect(names.slice(0, 2)).toEqual(['sub:dir', 'videos:dir']);
    expect(names).toContain('p.flipbook:file');
    expect(names).toContain('results.jsonl:file');
    expect(names.filter((n) => n.startsWith('.') || n.startsWith('escape'))).toEqual([]);
    // The project folder's parent is outside every root (unless it is in home): no way up from here.
    if (!v.roots.some((x) => root.startsWith(`${x}/`))) expect(v.parent).toBeNull();
  });

  it('refuses folders outside the roots, also through .. and links', async () => {
    for (const p of [path.join(root, 'elsewhere'), path.join(root, 'proj/../elsewhere'), path.join(root, 'proj/escape'), '/etc']) {
      const r = await list(p);
      if (p === '/etc' && r.ok) continue; // only when / is the home of the user running the test
      expect(r.ok, p).toBe(false);
      if (!r.ok) expect(r.error.code).toBe('forbidden');
    }
    const rel = await list('relative/path');
    expect(rel.ok).toBe(false);
    const ok = await list(path.join(root, 'proj/videos'));
    expect(ok.ok).toBe(true);
  });

  it('answers the web mode only with the token', async () => {
    const url = `http://127.0.0.1:${web.server.port}/api/op/files:list`;
    const body = JSON.stringify({ path: null });
    const without = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(without.status).toBe(401);
    const withToken = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-flipbook-token': web.server.token }, body });
    expect(((await withToken.json()) as { ok: boolean }).ok).toBe(true);
  });
});

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebServer, resolveStatic, type WebServer } from '../../../electron/server/http-server';
import { createMediaResponder } from '../../../electron/server/media-route';
import { createMediaRegistry } from '../../../electron/media/media-registry';
import type { Handlers } from '../../../electron/api/dispatch';
import { ServiceError } from '../../../shared/api/service-error';
import { tempDir } from '../../temp-dir';

function raw(port: number, p: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: p, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('web mode HTTP bridge', () => {
  let dir: string;
  let server: WebServer;
  let videoId: string;
  const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
  const registry = createMediaRegistry();

  beforeAll(async () => {
    dir = tempDir('fb-http-');
    fs.mkdirSync(path.join(dir, 'static'));
    fs.writeFileSync(path.join(dir, 'static/index.html'), '<!doctype html><title>app</title>');
    fs.writeFileSync(path.join(dir, 'secret.txt'), 'top secret');
    fs.writeFileSync(path.join(dir, 'clip.mp4'), bytes);
    videoId = registry.register(path.join(dir, 'clip.mp4'));
    // Handlers only as far as this test needs; the rest answer a ServiceError.
    const handlers = new Proxy({} as Handlers, {
      get: (_t, name) =>
        name === 'project:info'
          ? () => null
          : () => {
              throw new ServiceError('no-project', 'no project is open');
            },
    });
    server = await startWebServer({ handlers, staticDir: path.join(dir, 'static'), port: 0, media: createMediaResponder(registry) });
  });
  afterAll(async () => {
    await server.close();
  });

  const auth = () => ({ 'x-flipbook-token': server.token });

  it('listens on 127.0.0.1 and prints a tokened URL', () => {
    expect(server.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/\\?token=[A-Za-z0-9_-]{20,}$`));
  });

  it('refuses every request without the right token', async () => {
    for (const p of ['/', '/index.html', `/media/${videoId}`, '/api/events']) expect((await raw(server.port, p)).status, p).toBe(401);
    expect((await raw(server.port, '/api/op/project:info', {}, 'POST')).status).toBe(401);
    expect((await raw(server.port, '/?token=nope')).status).toBe(401);
    expect((await raw(server.port, '/', { 'x-flipbook-token': server.token + 'x' })).status).toBe(401);
  });

  it('sets an HttpOnly cookie from the tokened URL so the page can load its assets', async () => {
    const r = await raw(server.port, `/?token=${server.token}`);
    expect(r.status).toBe(200);
    const cookie = String(r.headers['set-cookie']);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(r.headers['content-security-policy']).toContain("script-src 'self'");
    const again = await raw(server.port, '/index.html', { cookie: cookie.split(';')[0] ?? '' });
    expect(again.status).toBe(200);
  });

  it('answers operations as Results (unknown op 404, bad JSON a bad-request Result)', async () => {
    const ok = await raw(server.port, '/api/op/project:info', auth(), 'POST');
    expect(JSON.parse(ok.body.toString())).toEqual({ ok: true, value: null });
    const svc = await raw(server.port, '/api/op/overview:get', auth(), 'POST');
    expect(JSON.parse(svc.body.toString())).toEqual({ ok: false, error: { code: 'no-project', message: 'no project is open' } });
    expect((await raw(server.port, '/api/op/fs:readFile', auth(), 'POST')).status).toBe(404);
  });

  it('refuses a foreign Host header (DNS rebinding)', async () => {
    expect((await raw(server.port, '/', { ...auth(), host: 'attacker.example' })).status).toBe(403);
  });

  it('refuses path traversal on static files and media', async () => {
    for (const p of ['/../secret.txt', '/..%2fsecret.txt', '/%2e%2e/secret.txt', '/static/..%5csecret.txt', '/media/..%2f..%2fsecret.txt']) {
      const r = await raw(server.port, p, auth());
      expect([400, 404], p).toContain(r.status);
      expect(r.body.toString()).not.toContain('top secret');
    }
    expect(resolveStatic('/srv/app', '/a/../../etc/passwd')).toBeNull();
    expect(resolveStatic('/srv/app', '/assets/x.js')).toBe('/srv/app/assets/x.js');
  });

  it('serves media only by issued id, with ranges', async () => {
    expect((await raw(server.port, '/media/AAAAAAAAAAAAAAAAAAAAAA', auth())).status).toBe(404);
    expect((await raw(server.port, `/media/${encodeURIComponent(path.join(dir, 'clip.mp4'))}`, auth())).status).toBe(404);
    const full = await raw(server.port, `/media/${videoId}`, auth());
    expect(full.status).toBe(200);
    expect(full.headers['accept-ranges']).toBe('bytes');
    expect(full.body.equals(bytes)).toBe(true);
    const part = await raw(server.port, `/media/${videoId}`, { ...auth(), range: 'bytes=100-199' });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 100-199/1000');
    expect(part.body.equals(bytes.subarray(100, 200))).toBe(true);
    const tail = await raw(server.port, `/media/${videoId}`, { ...auth(), range: 'bytes=-10' });
    expect(tail.body.equals(bytes.subarray(990))).toBe(true);
    expect((await raw(server.port, `/media/${videoId}`, { ...auth(), range: 'bytes=5000-' })).status).toBe(416);
  });
});

import { writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMediaRegistry, handleMediaFetch, handleMediaNode, mediaIdFromPath, parseRange } from '../../../electron/media/range-server';
import { tempDir } from '../../temp-dir';

// A real HTTP server in front of the module, as the web mode uses it; raw http.request so
// paths like /media/../x reach the server unnormalised.
const dir = tempDir('flipbook-range-');
const bytes = Buffer.from(Array.from({ length: 10_000 }, (_, i) => (i * 7 + 3) % 256));
const videoPath = join(dir, 'clip.mp4');
const secretPath = join(dir, 'secret.txt');
writeFileSync(videoPath, bytes);
writeFileSync(secretPath, 'top secret');
writeFileSync(join(dir, 'empty.webm'), '');
const registry = createMediaRegistry();
const id = registry.register(videoPath);
const emptyId = registry.register(join(dir, 'empty.webm'));
let server: Server;
let port = 0;

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const pathname = (req.url ?? '').split('?')[0] ?? '';
    void handleMediaNode(registry, req, res, mediaIdFromPath(pathname, '/media/'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('range server over a real HTTP server', () => {
  it('200 with the whole file, Accept-Ranges and the MIME type', async () => {
    const r = await get(`/media/${id}`);
    expect(r.status).toBe(200);
    expect(r.headers['accept-ranges']).toBe('bytes');
    expect(r.headers['content-type']).toBe('video/mp4');
    expect(r.headers['content-length']).toBe('10000');
    expect(r.body.equals(bytes)).toBe(true);
  });

  it.each([
    ['bytes=0-99', 0, 99],
    ['bytes=5000-5999', 5000, 5999],
    ['bytes=9000-', 9000, 9999],
    ['bytes=-250', 9750, 9999],
    ['bytes=9990-20000', 9990, 9999],
    ['bytes=-20000', 0, 9999],
    ['bytes=1234-1234', 1234, 1234],
  ])('%s → 206 with the right bytes', async (range, start, end) => {
    const r = await get(`/media/${id}`, { Range: range });
    expect(r.status).toBe(206);
    expect(r.headers['content-range']).toBe(`bytes ${start}-${end}/10000`);
    expect(r.headers['content-length']).toBe(String(end - start + 1));
    expect(r.body.equals(bytes.subarray(start, end + 1))).toBe(true);
  });

  it.each(['bytes=10000-', 'bytes=20000-30000', 'bytes=-0'])('%s → 416 with bytes */size', async (range) => {
    const r = await get(`/media/${id}`, { Range: range });
    expect(r.status).toBe(416);
    expect(r.headers['content-range']).toBe('bytes */10000');
  });

  it('malformed or multi-range headers are ignored (200 with the whole file)', async () => {
    for (const range of ['bytes=abc', 'items=0-5', 'bytes=5-2', 'bytes=0-1,5-6']) {
      const r = await get(`/media/${id}`, { Range: range });
      expect(r.status).toBe(200);
      expect(r.body.length).toBe(10000);
    }
  });

  it('HEAD gives headers and no body', async () => {
    const r = await get(`/media/${id}`, { Range: 'bytes=100-199' }, 'HEAD');
    expect(r.status).toBe(206);
    expect(r.headers['content-length']).toBe('100');
    expect(r.body.length).toBe(0);
    const full = await get(`/media/${id}`, {}, 'HEAD');
    expect(full.status).toBe(200);
    expect(full.headers['content-length']).toBe('10000');
  });

  it('other methods are refused', async () => {
    expect((await get(`/media/${id}`, {}, 'POST')).status).toBe(405);
  });

  it('an empty file: 200 empty, any range 416', async () => {
    const r = await get(`/media/${emptyId}`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('video/webm');
    expect((await get(`/media/${emptyId}`, { Range: 'bytes=0-' })).status).toBe(416);
  });

  it('unknown ids, paths and traversal attempts are refused and never serve another file', async () => {
    expect((await get('/media/0123456789abcdef0123456789abcdef')).status).toBe(404);
    for (const p of [
      '/media/../secret.txt',
      '/media/..%2fsecret.txt',
      `/media/${encodeURIComponent(secretPath)}`,
      `/media/${id}/../../secret.txt`,
      `/media/${id}%2f..`,
      '/media/secret.txt',
      `/media/${id}.mp4`,
      '/media/',
      '/media/%00',
    ]) {
      const r = await get(p);
      expect([400, 404]).toContain(r.status);
      expect(r.body.toString()).not.toContain('top secret');
    }
    // the registry itself refuses anything that is not an id
    expect(registry.pathOf('../secret.txt')).toBeNull();
    expect(registry.pathOf(secretPath)).toBeNull();
  });

  it('a registered file that disappeared gives 404', async () => {
    const gone = registry.register(join(dir, 'gone.mp4'));
    expect((await get(`/media/${gone}`)).status).toBe(404);
  });
});

describe('Fetch adapter (Electron protocol.handle)', () => {
  it('serves ranges as a web Response', async () => {
    const res = await handleMediaFetch(registry, new Request(`media://video/${id}`, { headers: { Range: 'bytes=-16' } }), id);
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe('bytes 9984-9999/10000');
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes.subarray(9984))).toBe(true);
    const bad = await handleMediaFetch(registry, new Request('media://video/x'), mediaIdFromPath('/../etc/passwd', '/'));
    expect(bad.status).toBe(400);
  });
});

describe('parseRange', () => {
  it('covers the RFC forms', () => {
    expect(parseRange('bytes=0-0', 1)).toEqual({ start: 0, end: 0 });
    expect(parseRange('bytes=0-', 0)).toBe('unsatisfiable');
    expect(parseRange(null, 5)).toBeNull();
    expect(parseRange('bytes=-3', 2)).toEqual({ start: 0, end: 1 });
  });
});

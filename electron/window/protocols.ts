/**
 * app:// serves the built renderer from inside the app (never file://, which would give the
 * page file-system origin rights); media:// serves videos and thumbnails by opaque id.
 * Videos are read with Range support from our own handler: net.fetch of a file:// URL
 * ignores Range headers (electron/electron#38749), which breaks seeking.
 */
import { protocol, type Session } from 'electron';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { contentSecurityPolicy } from '../security/csp';
import type { MediaRegistry } from '../services/media-registry';
import { resolveStatic } from '../server/http-server';

export function registerSchemesAsPrivileged(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } },
    { scheme: 'media', privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true } },
  ]);
}

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json', '.woff2': 'font/woff2' };

export function handleProtocols(session: Session, rendererDir: string, media: MediaRegistry): void {
  const csp = contentSecurityPolicy(['media:']);
  session.protocol.handle('app', async (req) => {
    const url = new URL(req.url);
    if (url.host !== 'flipbook') return new Response('not found', { status: 404 });
    const file = resolveStatic(rendererDir, url.pathname === '/' ? '/index.html' : url.pathname);
    if (file === null || !fs.existsSync(file) || fs.statSync(file).isDirectory()) return new Response('not found', { status: 404 });
    const body = await fs.promises.readFile(file);
    return new Response(body, { headers: { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'content-security-policy': csp } });
  });
  session.protocol.handle('media', async (req) => {
    const id = new URL(req.url).pathname.replace(/^\//, '');
    const entry = /^[A-Za-z0-9_-]{6,200}$/.test(id) ? media.resolve(id) : undefined;
    if (!entry) return new Response('unknown media id', { status: 404 });
    const st = await fs.promises.stat(entry.path).catch(() => null);
    if (!st) return new Response('gone', { status: 404 });
    const size = st.size;
    const range = req.headers.get('range');
    const m = range ? /^bytes=(\d*)-(\d*)$/.exec(range) : null;
    const base = { 'content-type': entry.mime, 'accept-ranges': 'bytes' };
    if (range && m) {
      let start: number;
      let end: number;
      if (m[1] === '') {
        start = Math.max(0, size - Number(m[2]));
        end = size - 1;
      } else {
        start = Number(m[1]);
        end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
      }
      if (start >= size || end < start) return new Response(null, { status: 416, headers: { ...base, 'content-range': `bytes */${size}` } });
      const stream = Readable.toWeb(fs.createReadStream(entry.path, { start, end })) as ReadableStream<Uint8Array>;
      return new Response(stream, { status: 206, headers: { ...base, 'content-range': `bytes ${start}-${end}/${size}`, 'content-length': String(end - start + 1) } });
    }
    if (range) return new Response(null, { status: 416, headers: { ...base, 'content-range': `bytes */${size}` } });
    const stream = Readable.toWeb(fs.createReadStream(entry.path)) as ReadableStream<Uint8Array>;
    return new Response(stream, { status: 200, headers: { ...base, 'content-length': String(size) } });
  });
}

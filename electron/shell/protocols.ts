/**
 * app:// serves the built renderer from inside the app (never file://, which would give the
 * page file-system origin rights); media:// serves videos and thumbnails by opaque id.
 * Videos are read with Range support from our own handler: net.fetch of a file:// URL
 * ignores Range headers (electron/electron#38749), which breaks seeking.
 */
import { protocol, type Session } from 'electron';
import fs from 'node:fs';
import { contentSecurityPolicy } from '../server/csp';
import { mimeTypeOf } from '../media/mime';
import type { MediaRegistry } from '../media/media-registry';
import { handleMediaFetch, mediaIdFromPath } from '../media/range-server';
import { resolveStatic } from '../server/http-server';

export function registerSchemesAsPrivileged(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } },
    { scheme: 'media', privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true } },
  ]);
}

export function handleProtocols(session: Session, rendererDir: string, media: MediaRegistry): void {
  const csp = contentSecurityPolicy(['media:']);
  session.protocol.handle('app', async (req) => {
    const url = new URL(req.url);
    if (url.host !== 'flipbook') return new Response('not found', { status: 404 });
    const file = resolveStatic(rendererDir, url.pathname === '/' ? '/index.html' : url.pathname);
    if (file === null || !fs.existsSync(file) || fs.statSync(file).isDirectory()) return new Response('not found', { status: 404 });
    const body = await fs.promises.readFile(file);
    return new Response(body, { headers: { 'content-type': mimeTypeOf(file), 'content-security-policy': csp } });
  });
  session.protocol.handle('media', (req) => handleMediaFetch(media, req, mediaIdFromPath(new URL(req.url).pathname, '/')));
}

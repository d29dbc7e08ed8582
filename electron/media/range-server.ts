import { randomBytes } from 'node:crypto';
import { mimeTypeOf } from './mime';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/**
 * Serves registered videos to the renderer by opaque id with HTTP range semantics
 * (docs/architecture.md "Media"). One core (`serveMedia`) and two thin adapters: Fetch-style Request → Response
 * for Electron's protocol.handle, and (req, res) for the web mode's Node HTTP server.
 *
 * Why not net.fetch('file://…'): it ignores Range (electron/electron#38749), so <video>
 * could not seek in large files. Why opaque ids: the renderer never learns or sends a path,
 * so nothing it sends can name another file.
 */

export { mimeTypeOf };

/**
 * Ids are 32 hex characters (register() below); the pattern admits similar tokens and refuses
 * anything with a dot, slash, backslash or percent. Both transports check ids with it.
 */
const ID_PATTERN = /^[A-Za-z0-9_-]{8,128}$/;

export function isValidMediaId(id: string): boolean {
  return ID_PATTERN.test(id);
}

export interface MediaRegistry {
  /** Register a file; returns its opaque id (the same id for the same path). */
  register(path: string): string;
  unregister(id: string): void;
  pathOf(id: string): string | null;
}

export function createMediaRegistry(): MediaRegistry {
  const byId = new Map<string, string>();
  const byPath = new Map<string, string>();
  return {
    register(path) {
      const existing = byPath.get(path);
      if (existing) return existing;
      const id = randomBytes(16).toString('hex');
      byId.set(id, path);
      byPath.set(path, id);
      return id;
    },
    unregister(id) {
      const p = byId.get(id);
      if (p !== undefined) byPath.delete(p);
      byId.delete(id);
    },
    pathOf: (id) => (isValidMediaId(id) ? (byId.get(id) ?? null) : null),
  };
}

export type ByteRange = { start: number; end: number };

/**
 * RFC 9110 §14: 'bytes=a-b', 'bytes=a-', 'bytes=-n'. Returns null to ignore the header
 * (malformed, other units, several ranges — a server may always answer 200 with the whole
 * file), 'unsatisfiable' for 416.
 */
export function parseRange(header: string | null, size: number): ByteRange | null | 'unsatisfiable' {
  if (!header) return null;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m) return null;
  const [, a = '', b = ''] = m;
  if (a === '' && b === '') return null;
  if (a === '') {
    const n = Number(b);
    if (n === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(a);
  if (!Number.isSafeInteger(start)) return null;
  if (start >= size) return 'unsatisfiable';
  if (b === '') return { start, end: size - 1 };
  const end = Number(b);
  if (!Number.isSafeInteger(end) || end < start) return null;
  return { start, end: Math.min(end, size - 1) };
}

export interface MediaResponse {
  status: number;
  headers: Record<string, string>;
  /** null for HEAD, errors and 416. */
  body: { path: string; start: number; end: number } | null;
  /** Short reason sent with error statuses. */
  text?: string;
}

function plain(status: number, text: string): MediaResponse {
  return { status, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' }, body: null, text };
}

/** The transport-free core: decide status, headers and which bytes to send. */
export async function serveMedia(registry: MediaRegistry, id: string, method: string, rangeHeader: string | null): Promise<MediaResponse> {
  if (method !== 'GET' && method !== 'HEAD') return { ...plain(405, 'method not allowed'), headers: { ...plain(405, '').headers, Allow: 'GET, HEAD' } };
  if (!isValidMediaId(id)) return plain(400, 'bad media id');
  const path = registry.pathOf(id);
  if (!path) return plain(404, 'unknown media id');
  let size: number;
  try {
    const st = await stat(path);
    if (!st.isFile()) return plain(404, 'media file missing');
    size = st.size;
  } catch {
    return plain(404, 'media file missing');
  }
  const base: Record<string, string> = {
    'Content-Type': mimeTypeOf(path),
    'Accept-Ranges': 'bytes',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-cache',
  };
  const range = parseRange(rangeHeader, size);
  if (range === 'unsatisfiable') return { status: 416, headers: { ...base, 'Content-Range': `bytes */${size}`, 'Content-Length': '0' }, body: null };
  if (range === null) {
    return { status: 200, headers: { ...base, 'Content-Length': String(size) }, body: method === 'HEAD' || size === 0 ? null : { path, start: 0, end: size - 1 } };
  }
  return {
    status: 206,
    headers: { ...base, 'Content-Range': `bytes ${range.start}-${range.end}/${size}`, 'Content-Length': String(range.end - range.start + 1) },
    body: method === 'HEAD' ? null : { path, start: range.start, end: range.end },
  };
}

/**
 * The id from a URL path: exactly `<prefix><id>` with nothing after it. Percent-encoded or
 * extra segments are refused rather than decoded, so '..%2f' can never become a path.
 */
export function mediaIdFromPath(pathname: string, prefix: string): string | null {
  if (!pathname.startsWith(prefix)) return null;
  const id = pathname.slice(prefix.length);
  return isValidMediaId(id) ? id : null;
}

/** Electron protocol.handle adapter: `protocol.handle('media', (req) => handleMediaFetch(registry, req, idOf(req.url)))`. */
export async function handleMediaFetch(registry: MediaRegistry, request: Request, id: string | null): Promise<Response> {
  const r = await serveMedia(registry, id ?? '', request.method, request.headers.get('range'));
  if (!r.body) return new Response(r.text && request.method !== 'HEAD' ? r.text : null, { status: r.status, headers: r.headers });
  const stream = createReadStream(r.body.path, { start: r.body.start, end: r.body.end });
  return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, { status: r.status, headers: r.headers });
}

/** Node http adapter for the web mode's route. */
export async function handleMediaNode(registry: MediaRegistry, req: IncomingMessage, res: ServerResponse, id: string | null): Promise<void> {
  const rangeHeader = req.headers.range ?? null;
  const r = await serveMedia(registry, id ?? '', req.method ?? 'GET', rangeHeader);
  res.writeHead(r.status, r.headers);
  if (!r.body) {
    res.end(r.text && req.method !== 'HEAD' ? r.text : undefined);
    return;
  }
  const stream = createReadStream(r.body.path, { start: r.body.start, end: r.body.end });
  stream.on('error', () => res.destroy());
  res.on('close', () => stream.destroy());
  stream.pipe(res);
}

/**
 * The web mode's media route: ids from the backend's registry only (anything else is 404,
 * so a path or a traversal attempt never reaches the file system), served with HTTP range
 * semantics by the frames helper's range module when present.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { MediaRegistry } from '../services/media-registry';

function parseRange(header: string, size: number): { start: number; end: number } | null | 'invalid' {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return 'invalid';
  const [, a, b] = m;
  if (a === '' && b === '') return 'invalid';
  if (a === '') {
    const n = Number(b);
    if (n === 0) return null;
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(a);
  const end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  if (start >= size || end < start) return null;
  return { start, end };
}

export function createMediaResponder(registry: MediaRegistry) {
  return async (req: IncomingMessage, res: ServerResponse, id: string): Promise<void> => {
    const entry = registry.resolve(id);
    if (!entry) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return void res.end('unknown media id');
    }
    const st = await stat(entry.path).catch(() => null);
    if (!st || !st.isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return void res.end('media file is gone');
    }
    const size = st.size;
    const base = { 'content-type': entry.mime, 'accept-ranges': 'bytes', 'cache-control': 'private, max-age=3600', 'x-content-type-options': 'nosniff' };
    const rangeHeader = req.headers.range;
    if (rangeHeader) {
      const r = parseRange(rangeHeader, size);
      if (r === null || r === 'invalid') {
        res.writeHead(416, { ...base, 'content-range': `bytes */${size}` });
        return void res.end();
      }
      res.writeHead(206, { ...base, 'content-range': `bytes ${r.start}-${r.end}/${size}`, 'content-length': String(r.end - r.start + 1) });
      if (req.method === 'HEAD') return void res.end();
      createReadStream(entry.path, { start: r.start, end: r.end }).pipe(res);
      return;
    }
    res.writeHead(200, { ...base, 'content-length': String(size) });
    if (req.method === 'HEAD') return void res.end();
    createReadStream(entry.path).pipe(res);
  };
}

/**
 * The web mode's HTTP bridge: the built renderer, the contract's handlers and media, over
 * loopback only. Every request must carry the server's random token (query `token`, header
 * `x-flipbook-token`, or the HttpOnly cookie set when the page is first opened with it);
 * without it the answer is 401. The Host header must name the loopback address we bound,
 * which stops DNS-rebinding pages from reaching the API through another name.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { AddressInfo, Socket } from 'node:net';
import { dispatch, type Handlers } from '../api/dispatch';
import { isOpName, type EventName } from '../../shared/api/contract';
import { clipMessage } from '../../shared/api/clip';
import { contentSecurityPolicy } from './csp';
import { mimeTypeOf } from '../media/mime';
import { isValidMediaId } from '../media/range-server';

export type MediaResponder = (req: IncomingMessage, res: ServerResponse, id: string) => void | Promise<void>;

export interface WebServerOptions {
  handlers: Handlers;
  /** Folder with the built renderer (vite build output); null serves only the API. */
  staticDir: string | null;
  port?: number;
  token?: string;
  media: MediaResponder;
  /** Largest accepted request body (JSON), bytes. */
  maxBody?: number;
  /** Most open connections; past it the oldest idle one is closed (default 128). */
  maxConnections?: number;
}

/**
 * Connection limits (docs/security.md, "Web mode"). A page needs a handful of connections
 * (the browser opens ≤ 6 per host, plus one event stream); a client that opens thousands and
 * sends nothing must not use up the process's file descriptors and starve the real page.
 * Headers must arrive within HEADERS_TIMEOUT_MS and a request body within REQUEST_TIMEOUT_MS;
 * a socket with no traffic for IDLE_TIMEOUT_MS is closed (the event stream's 15 s comment
 * keeps it alive; a paused video's connection is simply reopened by the browser).
 */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 60_000;
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;
export const IDLE_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_CONNECTIONS = 128;

export interface WebServer {
  url: string;
  port: number;
  token: string;
  emit(event: EventName, payload: unknown): void;
  close(): Promise<void>;
}

/**
 * Cookies are scoped by host, not port: two `serve`s on 127.0.0.1 would overwrite one
 * cookie, and the first tab's media would answer 401. One name per port.
 */
export const cookieName = (port: number): string => `flipbook_token_${port}`;
const CSP = contentSecurityPolicy();

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookieToken(req: IncomingMessage, name: string): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return null;
}

function send(res: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(body);
}

async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > limit) throw new Error('request body too large');
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Resolve a URL path inside root, or null for anything that escapes it (traversal, NUL, backslashes). */
export function resolveStatic(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const segments = decoded.split('/').filter((s) => s.length > 0);
  if (segments.some((s) => s === '..' || s === '.')) return null;
  const full = path.resolve(root, ...segments);
  const rel = path.relative(root, full);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
  return full;
}

export async function startWebServer(opts: WebServerOptions): Promise<WebServer> {
  const token = opts.token ?? randomBytes(24).toString('base64url');
  const maxBody = opts.maxBody ?? 8 * 1024 * 1024;
  const sse = new Set<ServerResponse>();
  let port = 0;

  const authorised = (req: IncomingMessage, url: URL): boolean => {
    const given = url.searchParams.get('token') ?? (req.headers['x-flipbook-token'] as string | undefined) ?? cookieToken(req, cookieName(port));
    return typeof given === 'string' && safeEqual(given, token);
  };
  const hostOk = (req: IncomingMessage): boolean => {
    const host = req.headers.host ?? '';
    return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
  };

  async function serveStatic(req: IncomingMessage, res: ServerResponse, url: URL, setCookie: boolean): Promise<void> {
    if (opts.staticDir === null) return send(res, 404, 'no renderer build');
    const root = path.resolve(opts.staticDir);
    let file = resolveStatic(root, url.pathname);
    if (file === null) return send(res, 400, 'bad path');
    let st = await stat(file).catch(() => null);
    // Client-side routes (hash routing aside) fall back to the app shell.
    if (st === null || st.isDirectory()) {
      file = path.join(root, 'index.html');
      st = await stat(file).catch(() => null);
      if (st === null) return send(res, 404, `renderer not built (missing ${file}); run \`npx vite build\``);
    }
    const headers: Record<string, string> = {
      'content-type': mimeTypeOf(file),
      'content-length': String(st.size),
      'x-content-type-options': 'nosniff',
      'content-security-policy': CSP,
      'referrer-policy': 'no-referrer',
      'cache-control': file.endsWith('index.html') ? 'no-store' : 'private, max-age=3600',
    };
    if (setCookie) headers['set-cookie'] = `${cookieName(port)}=${token}; HttpOnly; SameSite=Strict; Path=/`;
    res.writeHead(200, headers);
    if (req.method === 'HEAD') return void res.end();
    createReadStream(file).pipe(res);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostOk(req)) return send(res, 403, 'forbidden host');
    // new URL() would quietly resolve dot segments; a request that contains any is refused outright.
    const rawPath = (req.url ?? '/').split('?')[0] ?? '/';
    if (resolveStatic('/', rawPath) === null) return send(res, 400, 'bad path');
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    if (!authorised(req, url)) return send(res, 401, 'missing or wrong token: open the URL printed by `flipbook serve`');
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://127.0.0.1:${port}` && origin !== `http://localhost:${port}`) {
      return send(res, 403, 'cross-origin request refused');
    }
    const p = url.pathname;
    if (p.startsWith('/api/op/')) {
      if (req.method !== 'POST') return send(res, 405, 'POST only');
      const name = decodeURIComponent(p.slice('/api/op/'.length));
      let payload: unknown;
      try {
        const body = await readBody(req, maxBody);
        payload = body.length === 0 ? {} : (JSON.parse(body) as unknown);
      } catch (e) {
        return send(res, 200, JSON.stringify({ ok: false, error: { code: 'bad-request', message: clipMessage(e instanceof Error ? e.message : String(e)) } }), 'application/json');
      }
      const result = await dispatch(opts.handlers, name, payload);
      // Results travel in the body with 200; only an operation that does not exist is a 404.
      const status = !result.ok && result.error.code === 'not-found' && !isOpName(name) ? 404 : 200;
      return send(res, status, JSON.stringify(result), 'application/json; charset=utf-8');
    }
    if (p === '/api/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
      res.write(': ready\n\n');
      sse.add(res);
      req.on('close', () => sse.delete(res));
      return;
    }
    if (p.startsWith('/media/')) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'GET or HEAD');
      const id = p.slice('/media/'.length);
      if (!isValidMediaId(id)) return send(res, 404, 'unknown media id');
      return void (await opts.media(req, res, id));
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'GET or HEAD');
    return serveStatic(req, res, url, url.searchParams.has('token'));
  }

  const server: Server = createServer({ connectionsCheckingInterval: 1_000 }, (req, res) => {
    // A socket with a request in flight is not idle: never evicted for a newcomer.
    const st = sockets.get(req.socket);
    if (st) {
      st.busy++;
      res.once('close', () => {
        st.busy--;
        st.since = Date.now();
      });
    }
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) send(res, 500, clipMessage(e instanceof Error ? e.message : String(e)));
      else res.destroy();
    });
  });
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.setTimeout(IDLE_TIMEOUT_MS, (socket) => socket.destroy());
  // The connection cap: at most maxConnections sockets; a newcomer past it closes the socket
  // idle the longest (no request in flight: a connection that never sent its headers, or a
  // keep-alive one between requests), so real requests keep being served while junk
  // connections come and go. Only when every socket is busy is the newcomer refused.
  const maxConnections = opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const sockets = new Map<Socket, { since: number; busy: number }>();
  server.on('connection', (socket: Socket) => {
    sockets.set(socket, { since: Date.now(), busy: 0 });
    socket.once('close', () => sockets.delete(socket));
    if (sockets.size <= maxConnections) return;
    let victim: Socket = socket;
    let oldest = Infinity;
    for (const [s, st] of sockets) {
      if (s !== socket && st.busy === 0 && st.since < oldest) {
        oldest = st.since;
        victim = s;
      }
    }
    sockets.delete(victim);
    victim.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  // SSE connections idle for long stretches; a comment every 15 s keeps proxies and the browser from dropping them.
  const keepAlive = setInterval(() => {
    for (const r of sse) r.write(': keep-alive\n\n');
  }, 15_000);
  keepAlive.unref();

  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    emit(event, payload) {
      const frame = `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`;
      for (const r of sse) r.write(frame);
    },
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(keepAlive);
        for (const r of sse) r.end();
        sse.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// The web mode's connection cap (docs/security.md, "Web mode"): hundreds of idle sockets must
// not use up the server's file descriptors and starve the page's real requests. Traffic goes
// to 127.0.0.1 only, bounded in count and time.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startWebServer } from '../../../electron/server/http-server';
import { createMediaResponder } from '../../../electron/server/media-route';
import { createMediaRegistry } from '../../../electron/media/media-registry';
import type { Handlers } from '../../../electron/api/dispatch';
import { repoRoot } from '../cli/cli-helpers';
import { tempDir } from '../../temp-dir';

const children: ChildProcess[] = [];
const sockets: net.Socket[] = [];
afterAll(() => {
  for (const s of sockets) s.destroy();
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

/** Opens `n` TCP connections that never send a byte; resolves once each connected or failed. */
async function idleSockets(port: number, n: number): Promise<{ open: net.Socket[]; closedByServer: () => number }> {
  let closed = 0;
  const open = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<net.Socket>((resolve) => {
          const s = net.connect({ host: '127.0.0.1', port });
          sockets.push(s);
          s.on('error', () => undefined);
          s.once('close', () => closed++);
          s.once('connect', () => resolve(s));
          s.once('error', () => resolve(s));
        }),
    ),
  );
  return { open, closedByServer: () => closed };
}

/** One real API request with the token; rejects after `ms`. */
function projectInfo(port: number, token: string, ms: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/api/op/project:info', method: 'POST', agent: false, headers: { 'x-flipbook-token': token, 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.setTimeout(ms, () => req.destroy(new Error(`no answer within ${ms} ms`)));
    req.on('error', reject);
    req.end('{}');
  });
}

describe('web mode connection limits', () => {
  it('600 idle sockets against a server with 256 file descriptors: a real request is still answered at once', async () => {
    const dir = tempDir('fb-conn-');
    const project = path.join(dir, 'p.flipbook');
    // The server runs with a small descriptor limit, so the flood reaches it with few sockets.
    const child = spawn(
      '/bin/sh',
      ['-c', 'ulimit -n 256 && exec "$0" "$@"', process.execPath, path.join(repoRoot, 'bin/flipbook.js'), 'serve', '--project', project, '--create', '--port', '0'],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(child);
    const url = await new Promise<URL>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`serve printed no URL: ${out}`)), 60_000);
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /Flipbook web mode: (\S+)/.exec(out);
        if (m) (clearTimeout(timer), resolve(new URL(m[1]!)));
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
    });
    const port = Number(url.port);
    const token = url.searchParams.get('token')!;
    expect(await projectInfo(port, token, 5_000)).toBe(200);

    await idleSockets(port, 600);
    const t0 = Date.now();
    expect(await projectInfo(port, token, 3_000)).toBe(200);
    expect(Date.now() - t0).toBeLessThan(3_000);
    child.kill('SIGTERM');
  }, 90_000);

  it('past maxConnections the oldest idle socket is closed; a busy one (event stream) is kept', async () => {
    const handlers = new Proxy({} as Handlers, { get: () => () => null });
    const server = await startWebServer({ handlers, staticDir: null, port: 0, token: 't0ken-abcdef', media: createMediaResponder(createMediaRegistry()), maxConnections: 4 });
    try {
      // A busy connection: the event stream, open for as long as the page is.
      const events = await new Promise<http.IncomingMessage>((resolve, reject) => {
        http.get({ host: '127.0.0.1', port: server.port, path: '/api/events', agent: false, headers: { 'x-flipbook-token': 't0ken-abcdef' } }, resolve).on('error', reject);
      });
      let eventsClosed = false;
      events.on('close', () => (eventsClosed = true));
      events.resume();
      const idle = await idleSockets(server.port, 10);
      const deadline = Date.now() + 5_000;
      while (idle.closedByServer() < 7 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      // 10 idle + 1 stream against a cap of 4: at least 7 idle sockets were closed, the stream was not.
      expect(idle.closedByServer()).toBeGreaterThanOrEqual(7);
      expect(eventsClosed).toBe(false);
      expect(await projectInfo(server.port, 't0ken-abcdef', 3_000)).toBe(200);
      for (const s of idle.open) s.destroy();
    } finally {
      await server.close();
    }
  }, 30_000);
});

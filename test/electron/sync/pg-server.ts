/**
 * A real PostgreSQL server for the sync tests: initdb + pg_ctl in a temporary folder, on a
 * free loopback port, as a non-root user (initdb refuses root: under root the commands run
 * through `runuser -u postgres`). Password authentication (scram-sha-256) everywhere, as on
 * a lab's server. Stopped and removed by stop().
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** The newest PostgreSQL under /usr/lib/postgresql (Debian's layout), or $FLIPBOOK_PG_BIN. */
export function pgBinDir(): string | null {
  if (process.env.FLIPBOOK_PG_BIN) return fs.existsSync(path.join(process.env.FLIPBOOK_PG_BIN, 'initdb')) ? process.env.FLIPBOOK_PG_BIN : null;
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs
    .readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (fs.existsSync(path.join(root, v, 'bin', 'initdb'))) return path.join(root, v, 'bin');
  return null;
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export const ADMIN = 'flipbook_admin';
export const DATABASE = 'lab';

export interface PgServer {
  port: number;
  dir: string;
  /** Every role made by the tests gets this password. */
  password: string;
  url(user: string): string;
  /** A connection as `user` (admin by default) to `database` (the lab's by default); the caller ends it. */
  client(user?: string, database?: string): Promise<pg.Client>;
  /** A login role in group `flipbook_annotator` or `flipbook_reviewer`. */
  createRole(name: string, group: 'annotator' | 'reviewer'): Promise<void>;
  /** `pg_ctl stop -m immediate` (a power cut for the clients), without blocking the event loop. */
  crash(): Promise<void>;
  /** Starts it again (crash recovery), without blocking the event loop. */
  restart(): Promise<void>;
  stop(): void;
}

export async function startPgServer(): Promise<PgServer> {
  const bin = pgBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install postgresql; node scripts/ensure-system.js does it)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flipbook-pg-'));
  const data = path.join(dir, 'data');
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  fs.writeFileSync(path.join(dir, 'pwfile'), `${password}\n`);
  if (isRoot) execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  const command = (cmd: string, args: string[]): [string, string[]] => (isRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args]] : [path.join(bin, cmd), args]);
  const run = (cmd: string, args: string[]): void => {
    const [file, argv] = command(cmd, args);
    const r = spawnSync(file, argv, { encoding: 'utf8', cwd: dir, timeout: 60_000 });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}${r.stdout}`);
  };
  const runAsync = (cmd: string, args: string[]): Promise<void> =>
    new Promise((resolve, reject) => {
      const [file, argv] = command(cmd, args);
      execFile(file, argv, { cwd: dir, timeout: 60_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${cmd} ${args.join(' ')} failed: ${stderr}${stdout}`)) : resolve()));
    });
  run('initdb', ['-D', data, '-U', ADMIN, '--auth=scram-sha-256', `--pwfile=${path.join(dir, 'pwfile')}`, '-E', 'UTF8', '--no-locale', '--no-sync']);
  const port = await freePort();
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  const startArgs = ['-D', data, '-o', opts, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start'];
  run('pg_ctl', startArgs);
  const url = (user: string): string => `postgresql://${user}@127.0.0.1:${port}/${DATABASE}`;
  const client = async (user = ADMIN, database = DATABASE): Promise<pg.Client> => {
    const c = new pg.Client({ host: '127.0.0.1', port, user, database, password });
    c.on('error', () => undefined);
    await c.connect();
    return c;
  };
  const boot = await client(ADMIN, 'postgres');
  await boot.query(`CREATE DATABASE ${DATABASE}`);
  await boot.end();
  let stopped = false;
  return {
    port,
    dir,
    password,
    url,
    client,
    async createRole(name, group) {
      const c = await client();
      try {
        await c.query(`DO $$ BEGIN
          IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'flipbook_reviewer') THEN CREATE ROLE flipbook_reviewer NOLOGIN; END IF;
          IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'flipbook_annotator') THEN CREATE ROLE flipbook_annotator NOLOGIN; END IF;
        END $$`);
        await c.query(`CREATE ROLE ${name} LOGIN PASSWORD '${password}' IN ROLE flipbook_${group}`);
      } finally {
        await c.end();
      }
    },
    crash: () => runAsync('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']),
    restart: () => runAsync('pg_ctl', startArgs),
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      } catch {
        // already stopped (a test crashed it and did not restart)
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clientConfig, parseServerUrl, ServerUrlError, SYNC_TIMEOUTS, type ServerAddress } from '../../../electron/sync/connect';

describe('parseServerUrl (docs/team-sync.md: the server URL)', () => {
  it('reads user, host, port and database, with 5432 and localhost as libpq defaults', () => {
    const a = parseServerUrl('postgresql://ann@db.lab.example:6543/audits?sslmode=require');
    expect(a).toEqual({
      display: 'postgresql://ann@db.lab.example:6543/audits?sslmode=require',
      user: 'ann',
      host: 'db.lab.example',
      port: 6543,
      database: 'audits',
      connectionString: 'postgresql://ann@db.lab.example:6543/audits?sslmode=require',
    });
    const b = parseServerUrl('postgres://bob@db/lab');
    expect([b.port, b.host, b.display]).toEqual([5432, 'db', 'postgresql://bob@db/lab']);
  });

  it('decodes names, keeps a Unix socket directory as the host, and shows no other parameter than sslmode', () => {
    const a = parseServerUrl('postgresql://j%C3%BCrgen%40lab@%2Ftmp%2Fpg/my%20db?application_name=x');
    expect([a.user, a.host, a.database]).toEqual(['jürgen@lab', '/tmp/pg', 'my db']);
    expect(a.display).toBe('postgresql://j%C3%BCrgen%40lab@%2Ftmp%2Fpg/my%20db');
    // Only the leading slash of the path goes: a database name may hold one.
    expect(parseServerUrl('postgresql://ann@h/a%2Fb').database).toBe('a/b');
  });

  it.each([
    ['not a url', "not a URL: 'not a url' (expected postgresql://user@host/db)"],
    ['http://ann@h/db', "'http://ann@h/db': the URL must start with postgresql://"],
    ['mysql://ann@h/db', "'mysql://ann@h/db': the URL must start with postgresql://"],
    ['postgresql://ann:secret@h/db', 'put the password in PGPASSWORD or ~/.pgpass, not in the URL (Flipbook never stores passwords)'],
    ['postgresql://h/db', "'postgresql://h/db': name the PostgreSQL user (postgresql://user@host/db)"],
    ['postgresql://ann@h/', "'postgresql://ann@h/': name the database (postgresql://user@host/db)"],
    ['postgresql://ann@h', "'postgresql://ann@h': name the database (postgresql://user@host/db)"],
  ])('refuses %s with a message that says what to write', (url, message) => {
    expect(() => parseServerUrl(url)).toThrow(ServerUrlError);
    expect(() => parseServerUrl(url)).toThrow(message);
  });
});

describe('clientConfig (docs/team-sync.md §2: no wait is unbounded; passwords never stored)', () => {
  const addr: ServerAddress = parseServerUrl('postgresql://ann@127.0.0.1:5999/lab');
  let dir: string;
  const saved = { PGPASSWORD: process.env.PGPASSWORD, PGPASSFILE: process.env.PGPASSFILE };
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flipbook-connect-'));
    delete process.env.PGPASSWORD;
    // No ~/.pgpass of the machine's may answer.
    process.env.PGPASSFILE = path.join(dir, 'none');
  });
  afterEach(() => {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const password = (opts: Parameters<typeof clientConfig>[1] = {}): Promise<string> => (clientConfig(addr, opts).password as () => Promise<string>)();

  it('bounds every wait: lock and statement limits on the server, a client limit 15 s past the statement limit', () => {
    const c = clientConfig(addr);
    expect([c.host, c.port, c.user, c.database, c.application_name]).toEqual(['127.0.0.1', 5999, 'ann', 'lab', 'flipbook']);
    expect([c.connectionTimeoutMillis, c.lock_timeout, c.statement_timeout, c.idle_in_transaction_session_timeout, c.query_timeout]).toEqual([
      10_000,
      SYNC_TIMEOUTS.lockMs,
      SYNC_TIMEOUTS.statementMs,
      SYNC_TIMEOUTS.idleInTransactionMs,
      SYNC_TIMEOUTS.statementMs + 15_000,
    ]);
    const d = clientConfig(addr, { connectTimeoutMs: 1, lockTimeoutMs: 2, statementTimeoutMs: 3 });
    expect([d.connectionTimeoutMillis, d.lock_timeout, d.statement_timeout, d.query_timeout]).toEqual([1, 2, 3, 15_003]);
  });

  it('reads sslmode as libpq does: require encrypts without checking the certificate, verify-full checks it', () => {
    expect(clientConfig(parseServerUrl('postgresql://ann@h/lab?sslmode=require')).ssl).toEqual({ rejectUnauthorized: false });
    expect(clientConfig(parseServerUrl('postgresql://ann@h/lab?sslmode=verify-full')).ssl).toEqual({});
    expect(clientConfig(parseServerUrl('postgresql://ann@h/lab?sslmode=disable')).ssl).toBe(false);
  });

  it('takes the password from the caller, then PGPASSWORD, then the pgpass file, then the prompt', async () => {
    const asked: string[] = [];
    const prompt = (q: string): Promise<string> => (asked.push(q), Promise.resolve('typed'));
    expect(await password({ prompt })).toBe('typed');
    expect(asked).toEqual(['Password for ann@127.0.0.1: ']);
    const file = path.join(dir, 'pgpass');
    fs.writeFileSync(file, '127.0.0.1:5999:lab:ann:from-file\n', { mode: 0o600 });
    process.env.PGPASSFILE = file;
    expect(await password({ prompt })).toBe('from-file');
    process.env.PGPASSWORD = 'from-env';
    expect(await password({ prompt })).toBe('from-env');
    expect(await password({ prompt, password: 'held' })).toBe('held');
    expect(asked).toHaveLength(1);
    // An empty one is no password: the next source answers.
    expect(await password({ prompt, password: '' })).toBe('from-env');
    delete process.env.PGPASSWORD;
    expect(await password({ prompt, password: '' })).toBe('from-file');
  });

  it('says where to put a password when no source has one and nobody can be asked', async () => {
    await expect(password()).rejects.toThrow('the server asks for a password for ann: set PGPASSWORD or add it to ~/.pgpass');
    await expect(password({ prompt: null })).rejects.toThrow('set PGPASSWORD');
  });
});

/**
 * Connecting to a lab's PostgreSQL server (docs/team-sync.md). The client library is
 * node-postgres (`pg`): protocol, SCRAM authentication and TLS are its job. The URL carries
 * user, host, port, database and `sslmode` (TLS as libpq reads it); a password is never stored
 * anywhere by Flipbook — it comes from PGPASSWORD, ~/.pgpass (pg's own `pgpass` reader, same
 * rules as libpq) or a prompt, in that order, and only when the server asks for one.
 */
import { createRequire } from 'node:module';
import pg from 'pg';
import { parse as parseConnectionString, toClientConfig } from 'pg-connection-string';

/** pg's `pgpass` module (a dependency of pg): `(connInfo, cb(password | undefined))`. */
type PgPass = (info: { host?: string; port?: number; database?: string; user?: string }, cb: (pass: string | undefined) => void) => void;
const pgPass = createRequire(import.meta.url)('pgpass') as PgPass;

export interface ServerAddress {
  /** The URL without any password: what is shown and what keys the project's sync state. */
  display: string;
  user: string;
  host: string;
  port: number;
  database: string;
  /** The URL as given minus the password (sslmode and other parameters kept). */
  connectionString: string;
}

export class ServerUrlError extends Error {}

/** Parses `postgresql://user@host[:port]/db[?sslmode=…]`; a password in the URL is refused. */
export function parseServerUrl(url: string): ServerAddress {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ServerUrlError(`not a URL: '${url}' (expected postgresql://user@host/db)`);
  }
  if (u.protocol !== 'postgresql:' && u.protocol !== 'postgres:') throw new ServerUrlError(`'${url}': the URL must start with postgresql://`);
  if (u.password) throw new ServerUrlError('put the password in PGPASSWORD or ~/.pgpass, not in the URL (Flipbook never stores passwords)');
  const user = decodeURIComponent(u.username);
  if (!user) throw new ServerUrlError(`'${url}': name the PostgreSQL user (postgresql://user@host/db)`);
  // A path is empty or starts with '/' (the URL standard, for a URL with a host).
  const database = decodeURIComponent(u.pathname.slice(1));
  if (!database) throw new ServerUrlError(`'${url}': name the database (postgresql://user@host/db)`);
  // A host of the form %2Ftmp%2Fdir is a Unix socket directory (libpq's convention). The URL
  // parser refuses a user without a host, so there is always one.
  const host = decodeURIComponent(u.hostname);
  const port = u.port ? Number(u.port) : 5432;
  const sslmode = u.searchParams.get('sslmode');
  const display = `postgresql://${encodeURIComponent(user)}@${u.host}/${encodeURIComponent(database)}${sslmode ? `?sslmode=${sslmode}` : ''}`;
  return { display, user, host, port, database, connectionString: u.toString() };
}

export type PasswordPrompt = (question: string) => Promise<string>;

export interface ConnectOptions {
  /** Asked only when the server wants a password and neither PGPASSWORD nor ~/.pgpass has one. */
  prompt?: PasswordPrompt | null;
  /** A password held in memory by the caller (the app's Sync panel); never written anywhere. */
  password?: string | null;
  connectTimeoutMs?: number;
  /** How long a statement may wait for a lock (the push lock among them): SYNC_TIMEOUTS.lockMs. */
  lockTimeoutMs?: number;
  /** How long one statement may run on the server: SYNC_TIMEOUTS.statementMs. */
  statementTimeoutMs?: number;
}

/**
 * No wait of a sync is unbounded (docs/team-sync.md §2): the server cancels a statement that
 * waits longer than `lockMs` for a lock or runs longer than `statementMs`, and ends a session
 * left idle inside a transaction; the client gives up on an answer that never comes (a network
 * that drops packets silently) a little after the server would have. Sent as start-up
 * parameters of the connection: no statement more.
 */
export const SYNC_TIMEOUTS = { lockMs: 10_000, statementMs: 60_000, idleInTransactionMs: 60_000 } as const;

export function lookupPgPass(addr: ServerAddress): Promise<string | undefined> {
  return new Promise((resolve) => pgPass({ host: addr.host, port: addr.port, database: addr.database, user: addr.user }, resolve));
}

/**
 * What a connection is opened with: the URL's settings, the time limits above, and where the
 * password comes from (asked only when the server wants one).
 */
export function clientConfig(addr: ServerAddress, opts: ConnectOptions = {}): pg.ClientConfig {
  // pg's own URL parser (a dependency of pg) with libpq's sslmode semantics: require =
  // encrypted, verify-ca / verify-full = the certificate is checked too. Its empty password is
  // dropped so that the function below is what pg asks.
  const { password: _none, ...fromUrl } = toClientConfig(parseConnectionString(addr.connectionString, { useLibpqCompat: true }));
  const statementMs = opts.statementTimeoutMs ?? SYNC_TIMEOUTS.statementMs;
  return {
    ...fromUrl,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000,
    lock_timeout: opts.lockTimeoutMs ?? SYNC_TIMEOUTS.lockMs,
    statement_timeout: statementMs,
    idle_in_transaction_session_timeout: SYNC_TIMEOUTS.idleInTransactionMs,
    query_timeout: statementMs + 15_000,
    application_name: 'flipbook',
    password: async () => {
      if (opts.password) return opts.password;
      const env = process.env.PGPASSWORD;
      if (env) return env;
      const fromFile = await lookupPgPass(addr);
      if (fromFile !== undefined) return fromFile;
      if (opts.prompt) return opts.prompt(`Password for ${addr.user}@${addr.host}: `);
      throw new Error(`the server asks for a password for ${addr.user}: set PGPASSWORD or add it to ~/.pgpass`);
    },
  };
}

/** Opens one connection; the caller ends it. */
export async function connect(addr: ServerAddress, opts: ConnectOptions = {}): Promise<pg.Client> {
  const client = new pg.Client(clientConfig(addr, opts));
  // A dropped connection must not crash the process; the pending query rejects instead.
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

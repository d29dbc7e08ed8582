/**
 * Numbered schema migrations (`migrations/NNNN-name.sql`, steps of 10) applied against
 * PRAGMA user_version. All pending steps run in ONE transaction, so a failure leaves the file
 * at its old version; a file that already held data is first copied to `<file>.bak-v<old>`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';
import { ProjectVersionError } from './errors';
import { convertResponsesToColumns } from './migrate-columnar';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** A data step run after `sql`, in the same transaction (e.g. converting rows to a new layout). */
  run?: (db: Database.Database) => void;
}

/** Data steps by version: what SQL alone cannot do. */
const STEPS: Record<number, (db: Database.Database) => void> = {
  20: convertResponsesToColumns,
};

// The .sql files sit beside this module; a bundled build must copy the folder next to the
// bundle (electron-builder `extraResources`) or set FLIPBOOK_MIGRATIONS_DIR.
const MIGRATIONS_DIR = process.env.FLIPBOOK_MIGRATIONS_DIR ?? path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

let cached: Migration[] | null = null;

export function loadMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  if (dir === MIGRATIONS_DIR && cached) return cached;
  const list = fs
    .readdirSync(dir)
    .map((file) => /^(\d{4})-([a-z0-9-]+)\.sql$/.exec(file))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => {
      const version = Number(m[1]);
      const step = STEPS[version];
      return { version, name: m[2] ?? '', sql: fs.readFileSync(path.join(dir, m[0]), 'utf8'), ...(step ? { run: step } : {}) };
    })
    .sort((a, b) => a.version - b.version);
  for (let i = 1; i < list.length; i++) {
    if (list[i]!.version === list[i - 1]!.version) throw new Error(`duplicate migration version ${list[i]!.version} in ${dir}`);
  }
  if (dir === MIGRATIONS_DIR) cached = list;
  return list;
}

export function latestVersion(migrations: Migration[] = loadMigrations()): number {
  return migrations.length ? migrations[migrations.length - 1]!.version : 0;
}

export function userVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

function hasUserTables(db: Database.Database): boolean {
  const row = db.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").get() as { n: number };
  return row.n > 0;
}

/** Throws ProjectVersionError for a file from a newer Flipbook. */
export function checkVersion(db: Database.Database, file: string, migrations: Migration[] = loadMigrations()): number {
  const current = userVersion(db);
  const latest = latestVersion(migrations);
  if (current > latest) throw new ProjectVersionError(file, current, latest);
  return current;
}

export interface MigrationResult {
  from: number;
  to: number;
  backup: string | null;
}

export function migrate(db: Database.Database, file: string, migrations: Migration[] = loadMigrations()): MigrationResult {
  const from = checkVersion(db, file, migrations);
  const pending = migrations.filter((m) => m.version > from);
  if (pending.length === 0) return { from, to: from, backup: null };
  let backup: string | null = null;
  if (from > 0 || hasUserTables(db)) {
    backup = `${file}.bak-v${from}`;
    fs.rmSync(backup, { force: true });
    // VACUUM INTO makes the same consistent snapshot as db.backup() but synchronously, and
    // openProject() is synchronous (the CLI and the main process open before anything else).
    db.prepare('VACUUM INTO ?').run(backup);
  }
  const to = pending[pending.length - 1]!.version;
  db.transaction(() => {
    for (const m of pending) {
      db.exec(m.sql);
      m.run?.(db);
    }
    // user_version lives in the database header and is part of the transaction.
    db.pragma(`user_version = ${to}`);
  })();
  return { from, to, backup };
}

/**
 * Whose file is this? Before a project file is opened for writing (or read), it is looked at
 * without writing to it or beside it (docs/security.md "The project file"): Flipbook marks its
 * own files with SQLite's `application_id` (migration 0070); a file from before the mark is
 * recognised by its schema. Another application's SQLite file is refused untouched — taking it
 * over would add Flipbook's tables beside its own and switch it to WAL.
 */
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { sqliteBinding } from './sqlite-binding';

/** `PRAGMA application_id` of a Flipbook project: "FLPB". */
export const FLIPBOOK_APPLICATION_ID = 0x464c5042;

/** Tables every Flipbook schema since the first has: how a project from before the mark is told. */
const SIGNATURE_TABLES = ['models', 'splits', 'runs', 'items', 'configs', 'annotation_events', 'annotation_state', 'settings'];

export type ProjectFileKind =
  /** 0 bytes, or an SQLite file with no tables: a creation that was interrupted, safe to initialise. */
  | { kind: 'empty' }
  | { kind: 'flipbook'; version: number }
  | { kind: 'foreign'; why: string }
  /** Not readable as SQLite here (not a database, or a WAL file this process cannot read): the opener says why. */
  | { kind: 'unknown' };

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

function header(abs: string): Buffer | null {
  const fd = fs.openSync(abs, 'r');
  try {
    const b = Buffer.alloc(100);
    return fs.readSync(fd, b, 0, 100, 0) === 100 ? b : null;
  } finally {
    fs.closeSync(fd);
  }
}

export function identifyProjectFile(abs: string): ProjectFileKind {
  const st = fs.statSync(abs);
  if (st.size === 0) return { kind: 'empty' };
  const h = header(abs);
  if (h === null || !h.subarray(0, 16).equals(SQLITE_MAGIC)) return { kind: 'unknown' };
  // With no -wal or hot journal beside it, the file alone is the database: read it immutable
  // (no lock, no -shm, nothing written). Otherwise read-only, which replays the log in memory.
  const quiet = !fs.existsSync(`${abs}-wal`) && !fs.existsSync(`${abs}-journal`);
  // Without a log beside it the header is current: a marked file needs no connection (every
  // CLI call opens a project; a connection and three queries cost ~0.5 ms more).
  if (quiet && h.readInt32BE(68) === FLIPBOOK_APPLICATION_ID) return { kind: 'flipbook', version: h.readInt32BE(60) };
  let db: Database.Database | null = null;
  let appId: number;
  let version: number;
  let tables: string[];
  try {
    db = quiet
      ? new Database(`${pathToFileURL(abs).href}?immutable=1`, { readonly: true, fileMustExist: true, ...sqliteBinding() })
      : new Database(abs, { readonly: true, fileMustExist: true, ...sqliteBinding() });
    appId = db.pragma('application_id', { simple: true }) as number;
    version = db.pragma('user_version', { simple: true }) as number;
    tables = db.prepare<[], string>("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck(true).all();
  } catch {
    return { kind: 'unknown' };
  } finally {
    db?.close();
  }
  if (appId === FLIPBOOK_APPLICATION_ID) return { kind: 'flipbook', version };
  if (appId !== 0) return { kind: 'foreign', why: `it is another application's SQLite file (application_id 0x${(appId >>> 0).toString(16).padStart(8, '0')})` };
  if (tables.length === 0 && version === 0) return { kind: 'empty' };
  const have = new Set(tables);
  if (version > 0 && SIGNATURE_TABLES.every((t) => have.has(t))) return { kind: 'flipbook', version };
  const shown = tables.slice(0, 5).join(', ') + (tables.length > 5 ? `, … (${tables.length} tables)` : '');
  return { kind: 'foreign', why: `it is an SQLite file with tables of its own (${shown || 'none'}) and no Flipbook schema` };
}

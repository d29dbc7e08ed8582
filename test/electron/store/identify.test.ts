/**
 * Whose file is this (electron/store/identify.ts, docs/security.md "The project file"), asked
 * in this process: an empty file, a file that is not SQLite, a Flipbook project marked or from
 * before the mark (quiet or with its -wal), another application's file by its tables or its
 * application_id — and the look changes nothing, the -wal beside a file included.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { FLIPBOOK_APPLICATION_ID, identifyProjectFile } from '../../../electron/store/identify';
import { latestVersion, openProject } from '../../../electron/store/index';
import { tempDir } from './helpers';

const dir = () => tempDir('flipbook-identify-');
const digest = (f: string) => (fs.existsSync(f) ? createHash('sha256').update(fs.readFileSync(f)).digest('hex') : 'absent');
/**
 * Each file of `f`'s folder and its digest; a -shm only by name, since every reader of a WAL
 * database takes a read mark in it (SQLite's shared memory, never part of the database).
 */
const folder = (f: string) => Object.fromEntries(fs.readdirSync(path.dirname(f)).map((n) => [n, n.endsWith('-shm') ? 'present' : digest(path.join(path.dirname(f), n))]));
function sqlite(f: string, sql: string, pragmas: string[] = []): string {
  const db = new Database(f);
  for (const p of pragmas) db.pragma(p);
  db.exec(sql);
  db.close();
  return f;
}
/** identifyProjectFile, checking that it changed nothing in the file's folder. */
function identify(f: string) {
  const before = folder(f);
  const kind = identifyProjectFile(f);
  expect(folder(f)).toEqual(before);
  return kind;
}

describe('whose file this is', () => {
  it('an empty file, a short one, and one that is not SQLite', () => {
    const d = dir();
    fs.writeFileSync(path.join(d, 'empty.flipbook'), '');
    fs.writeFileSync(path.join(d, 'short.flipbook'), 'SQLite format 3\0');
    fs.writeFileSync(path.join(d, 'text.flipbook'), 'x'.repeat(4096));
    expect(identify(path.join(d, 'empty.flipbook'))).toEqual({ kind: 'empty' });
    expect(identify(path.join(d, 'short.flipbook'))).toEqual({ kind: 'unknown' });
    expect(identify(path.join(d, 'text.flipbook'))).toEqual({ kind: 'unknown' });
  });

  it('SQLite header, then garbage: not readable as SQLite here', () => {
    const f = path.join(dir(), 'bad.flipbook');
    const b = Buffer.alloc(8192, 0xab);
    b.write('SQLite format 3\0', 0, 'latin1');
    fs.writeFileSync(f, b);
    expect(identify(f)).toEqual({ kind: 'unknown' });
  });

  it('a Flipbook project: by its mark, quiet or with its -wal beside it', () => {
    const f = path.join(dir(), 'p.flipbook');
    openProject(f, { create: true }).close();
    expect(identify(f)).toEqual({ kind: 'flipbook', version: latestVersion() });
    // Open elsewhere: its -wal is there, and the look goes through a read-only connection.
    const open = openProject(f);
    expect(fs.existsSync(`${f}-wal`)).toBe(true);
    expect(identify(f)).toEqual({ kind: 'flipbook', version: latestVersion() });
    open.close();
  });

  it('a project from before the mark, by its schema; without one of its tables, or without a version, it is foreign', () => {
    const f = path.join(dir(), 'old.flipbook');
    openProject(f, { create: true }).close();
    sqlite(f, 'SELECT 1', ['application_id = 0', 'user_version = 7']);
    expect(identify(f)).toEqual({ kind: 'flipbook', version: 7 });
    const reader = new Database(f, { readonly: true });
    const tables = reader.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").get() as { n: number };
    reader.close();
    sqlite(f, 'SELECT 1', ['user_version = 0']);
    expect(identify(f)).toEqual({
      kind: 'foreign',
      why: expect.stringMatching(new RegExp(`^it is an SQLite file with tables of its own \\(.+, … \\(${tables.n} tables\\)\\) and no Flipbook schema$`)),
    });
    sqlite(f, 'DROP TABLE settings', ['user_version = 7']);
    expect(identify(f)).toMatchObject({ kind: 'foreign' });
  });

  it('an SQLite file with no tables is empty at version 0, foreign at any other', () => {
    const d = dir();
    expect(identify(sqlite(path.join(d, 'a.db'), 'CREATE TABLE t (x); DROP TABLE t'))).toEqual({ kind: 'empty' });
    expect(identify(sqlite(path.join(d, 'b.db'), 'CREATE TABLE t (x); DROP TABLE t', ['user_version = 3']))).toEqual({
      kind: 'foreign',
      why: 'it is an SQLite file with tables of its own (none) and no Flipbook schema',
    });
  });

  it("another application's tables: up to five named, more counted", () => {
    const d = dir();
    const make = (name: string, n: number) => sqlite(path.join(d, name), Array.from({ length: n }, (_, i) => `CREATE TABLE t${i} (x);`).join(' '));
    expect(identify(make('five.db', 5))).toEqual({ kind: 'foreign', why: 'it is an SQLite file with tables of its own (t0, t1, t2, t3, t4) and no Flipbook schema' });
    expect(identify(make('six.db', 6))).toEqual({ kind: 'foreign', why: 'it is an SQLite file with tables of its own (t0, t1, t2, t3, t4, … (6 tables)) and no Flipbook schema' });
    // Even with every table a Flipbook schema has, and a version.
    const all = ['models', 'splits', 'runs', 'items', 'configs', 'annotation_events', 'annotation_state'].map((t) => `CREATE TABLE ${t} (x);`).join(' ');
    expect(identify(sqlite(path.join(d, 'almost.db'), all, ['user_version = 4']))).toMatchObject({ kind: 'foreign' });
  });

  it("another application's mark, shown as eight hex digits, whatever its tables", () => {
    const d = dir();
    expect(identify(sqlite(path.join(d, 'a.db'), 'CREATE TABLE t (x)', ['application_id = 18']))).toEqual({
      kind: 'foreign',
      why: "it is another application's SQLite file (application_id 0x00000012)",
    });
    expect(identify(sqlite(path.join(d, 'b.db'), 'SELECT 1', ['application_id = -1']))).toEqual({
      kind: 'foreign',
      why: "it is another application's SQLite file (application_id 0xffffffff)",
    });
    expect(FLIPBOOK_APPLICATION_ID).toBe(0x464c5042);
  });

  it('a WAL-mode file whose tables are only in its -wal, left open by its application: read, and nothing changed', () => {
    const f = path.join(dir(), 'cache.sqlite');
    const db = new Database(f);
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('in the log')");
    expect(fs.statSync(`${f}-wal`).size).toBeGreaterThan(0);
    expect(identify(f)).toEqual({ kind: 'foreign', why: 'it is an SQLite file with tables of its own (notes) and no Flipbook schema' });
    db.close();
  });
});

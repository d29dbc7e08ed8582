/**
 * Files that are not ours are left alone (docs/security.md "The project file"): another
 * application's SQLite file given as --project is refused with its bytes unchanged and nothing
 * written beside it, by the command that would have written it (import) and by one that only
 * reads (metrics); a project of a newer Flipbook is refused, saying what to do, untouched; a
 * Flipbook project from before the `application_id` mark is still recognised, and gets the mark.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { FLIPBOOK_APPLICATION_ID } from '../../../electron/store/identify';
import { latestVersion, loadMigrations, migrate, openProject, ProjectVersionError } from '../../../electron/store/index';
import { flipbook, writePerItem } from '../cli/cli-helpers';
import { tempDir } from './helpers';

const sha = (f: string): string => createHash('sha256').update(fs.readFileSync(f)).digest('hex');
const listing = (dir: string): string[] => fs.readdirSync(dir).sort();

function csvIn(dir: string): string {
  const csv = path.join(dir, 'per_item.csv');
  writePerItem(csv, 'm1', 'S', { q1: { textonly: ['A', 0.5], '16f_151k': ['B', 0.4] } });
  return csv;
}

/** Runs `f` and checks that `file` and its folder are exactly as before. */
function untouched(file: string, f: () => void): void {
  const dir = path.dirname(file);
  const [bytes, files] = [sha(file), listing(dir)];
  f();
  expect(sha(file), `${file}'s bytes`).toBe(bytes);
  expect(listing(dir), `files beside ${file}`).toEqual(files);
}

describe('files that are not ours', () => {
  it("refuses another application's SQLite file untouched: import and metrics alike", () => {
    const dir = tempDir('flipbook-foreign-');
    const csv = csvIn(path.join(dir));
    const other = path.join(dir, 'app', 'other.db');
    fs.mkdirSync(path.dirname(other));
    const db = new Database(other);
    db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('keep me'), ('and me')");
    db.close();
    untouched(other, () => {
      const r = flipbook('import', csv, '--project', other);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${other}: not a Flipbook project: it is an SQLite file with tables of its own (notes) and no Flipbook schema; nothing was written to it`);
      const m = flipbook('metrics', '--project', other);
      expect(m.code).toBe(1);
      expect(m.stderr).toMatch(/not a Flipbook project: it is an SQLite file with tables of its own \(notes\)/);
      expect(m.stderr).not.toMatch(/empty project file|open it read-write/);
    });
    expect(() => openProject(other, { readOnly: true })).toThrow(/not a Flipbook project/);
  });

  it("refuses a WAL-mode file marked as another application's (application_id), with its -wal, untouched", () => {
    const dir = tempDir('flipbook-foreign-');
    const other = path.join(dir, 'cache.sqlite');
    const db = new Database(other);
    db.pragma('journal_mode = WAL');
    db.pragma('application_id = 305419896'); // 0x12345678
    db.exec('CREATE TABLE models (id INTEGER PRIMARY KEY, name TEXT)');
    // Left open: its -wal holds the table, as a running (or killed) application leaves it.
    const wal = `${other}-wal`;
    expect(fs.existsSync(wal)).toBe(true);
    const walBytes = sha(wal);
    untouched(other, () => {
      expect(() => openProject(other)).toThrow(/not a Flipbook project: it is another application's SQLite file \(application_id 0x12345678\)/);
    });
    expect(sha(wal)).toBe(walBytes);
    db.close();
  });

  it('refuses a project of a newer Flipbook, saying what to do, untouched, read-write and read-only', () => {
    const dir = tempDir('flipbook-newer-');
    const file = path.join(dir, 'newer.flipbook');
    openProject(file, { create: true }).close();
    const db = new Database(file);
    db.pragma(`user_version = ${latestVersion() + 10}`);
    db.close();
    untouched(file, () => {
      const r = flipbook('import', csvIn(tempDir('flipbook-newer-csv-')), '--project', file);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `was written by a newer Flipbook (schema ${latestVersion() + 10}; this one knows up to ${latestVersion()}): update Flipbook to open it; nothing was written to it`,
      );
      expect(() => openProject(file)).toThrow(ProjectVersionError);
      expect(() => openProject(file, { readOnly: true })).toThrow(ProjectVersionError);
    });
  });

  it('marks its own files with application_id, and still knows a project from before the mark', () => {
    const dir = tempDir('flipbook-mark-');
    const fresh = path.join(dir, 'new.flipbook');
    expect(flipbook('import', csvIn(dir), '--project', fresh).code).toBe(0);
    const read = (f: string, pragma: string) => {
      const d = new Database(f, { readonly: true });
      try {
        return d.pragma(pragma, { simple: true });
      } finally {
        d.close();
      }
    };
    expect(read(fresh, 'application_id')).toBe(FLIPBOOK_APPLICATION_ID);
    // A project an older Flipbook made (schema 40, no mark) opens and is migrated and marked.
    const old = path.join(dir, 'old.flipbook');
    const d = new Database(old);
    migrate(
      d,
      old,
      loadMigrations().filter((m) => m.version <= 40),
    );
    d.prepare("INSERT INTO models (name) VALUES ('kept')").run();
    d.close();
    expect(read(old, 'application_id')).toBe(0);
    const p = openProject(old);
    expect(p.migration).toMatchObject({ from: 40, to: latestVersion() });
    expect(p.listModels()).toEqual(['kept']);
    p.close();
    expect(read(old, 'application_id')).toBe(FLIPBOOK_APPLICATION_ID);
    // An empty file (a creation an older Flipbook left unfinished) is still initialised.
    const empty = path.join(dir, 'empty.flipbook');
    fs.writeFileSync(empty, '');
    openProject(empty).close();
    expect(read(empty, 'application_id')).toBe(FLIPBOOK_APPLICATION_ID);
  });
});

/**
 * The migration list and its edges (electron/store/migrate.ts): which files of a folder are
 * migrations and in which order, a repeated version refused, the data step of version 20, the
 * shipped list read once, and when a migration backs the file up first.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { checkVersion, latestVersion, loadMigrations, migrate, type Migration } from '../../../electron/store/migrate';
import { ProjectVersionError } from '../../../electron/store/errors';
import { tempDir } from './helpers';

function folder(files: Record<string, string>): string {
  const dir = tempDir('flipbook-migrations-');
  for (const [name, sql] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), sql);
  return dir;
}

describe('the migrations of a folder', () => {
  it('`NNNN-name.sql` files only, by version whatever their listing order; name and SQL kept', () => {
    const dir = folder({
      '0030-later-step.sql': 'C;',
      '0010-first.sql': 'A;',
      '0020-second.sql': 'B;',
      'README.md': 'not one',
      '10-short.sql': 'no',
      '0040-Upper.sql': 'no',
      '0050-ok.sql.bak': 'no',
      'x0060-ok.sql': 'no',
    });
    const list = loadMigrations(dir);
    expect(list.map((m) => [m.version, m.name, m.sql])).toEqual([
      [10, 'first', 'A;'],
      [20, 'second', 'B;'],
      [30, 'later-step', 'C;'],
    ]);
    // Version 20 carries its data step (rows to columns); the others none.
    expect(list.map((m) => typeof m.run)).toEqual(['undefined', 'function', 'undefined']);
    expect(latestVersion(list)).toBe(30);
    expect(latestVersion([])).toBe(0);
  });

  it('a version given twice is refused, naming it and the folder', () => {
    const dir = folder({ '0010-a.sql': '', '0020-b.sql': '', '0020-c.sql': '' });
    expect(() => loadMigrations(dir)).toThrow(`duplicate migration version 20 in ${dir}`);
  });

  it('the shipped list is read once and is the same list each time; another folder is read each time', () => {
    expect(loadMigrations()).toBe(loadMigrations());
    const dir = folder({ '0010-a.sql': 'A;' });
    const first = loadMigrations(dir);
    fs.writeFileSync(path.join(dir, '0020-b.sql'), 'B;');
    expect(loadMigrations(dir)).not.toBe(first);
    expect(loadMigrations(dir).map((m) => m.version)).toEqual([10, 20]);
    expect(loadMigrations()).not.toContainEqual(expect.objectContaining({ sql: 'B;' }));
  });
});

describe('migrating', () => {
  const steps: Migration[] = [
    { version: 10, name: 'a', sql: 'CREATE TABLE a (x);' },
    { version: 20, name: 'b', sql: 'CREATE TABLE b (x);' },
  ];

  it('an empty file: no backup; a file at version 0 that holds tables of its own: backed up first', () => {
    const dir = tempDir('flipbook-migrate-');
    const empty = path.join(dir, 'empty.db');
    const db = new Database(empty);
    expect(migrate(db, empty, steps)).toEqual({ from: 0, to: 20, backup: null });
    db.close();
    const held = path.join(dir, 'held.db');
    const other = new Database(held);
    other.exec('CREATE TABLE t (x)');
    expect(migrate(other, held, steps)).toEqual({ from: 0, to: 20, backup: `${held}.bak-v0` });
    other.close();
    expect(fs.existsSync(`${held}.bak-v0`)).toBe(true);
  });

  it('nothing pending: nothing done; an older backup is replaced by the new one', () => {
    const file = path.join(tempDir('flipbook-migrate-'), 'p.db');
    const db = new Database(file);
    migrate(db, file, steps.slice(0, 1));
    expect(migrate(db, file, steps.slice(0, 1))).toEqual({ from: 10, to: 10, backup: null });
    fs.writeFileSync(`${file}.bak-v10`, 'an older backup');
    expect(migrate(db, file, steps)).toEqual({ from: 10, to: 20, backup: `${file}.bak-v10` });
    db.close();
    const backup = new Database(`${file}.bak-v10`, { readonly: true });
    expect(backup.pragma('user_version', { simple: true })).toBe(10);
    backup.close();
  });

  it('a file of a newer version is refused; the latest itself is not', () => {
    const file = path.join(tempDir('flipbook-migrate-'), 'p.db');
    const db = new Database(file);
    db.pragma('user_version = 20');
    expect(checkVersion(db, file, steps)).toBe(20);
    db.pragma('user_version = 21');
    expect(() => checkVersion(db, file, steps)).toThrow(ProjectVersionError);
    expect(() => migrate(db, file, steps)).toThrow(`${file} was written by a newer Flipbook (schema 21; this one knows up to 20)`);
    db.close();
  });
});

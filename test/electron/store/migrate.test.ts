import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { latestVersion, loadMigrations, migrate, openProject, ProjectOpenError, ProjectVersionError } from '../../../electron/store/index';
import { tempDir } from './helpers';

describe('migrations', () => {
  it('creates the schema from scratch, sets user_version and WAL, and makes no backup', () => {
    const dir = tempDir();
    const file = path.join(dir, 'p.flipbook');
    const p = openProject(file, { create: true });
    expect(p.migration).toEqual({ from: 0, to: latestVersion(), backup: null });
    expect(p.db.pragma('user_version', { simple: true })).toBe(latestVersion());
    expect(p.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(p.db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(p.db.pragma('synchronous', { simple: true })).toBe(2); // FULL
    expect(p.db.pragma('temp_store', { simple: true })).toBe(2); // MEMORY: statement journals off the disk
    const tables = p.db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").pluck().all();
    for (const t of [
      'annotation_events',
      'annotation_state',
      'configs',
      'evidence_spans',
      'items',
      'media',
      'models',
      'response_columns',
      'runs',
      'saved_views',
      'settings',
      'splits',
    ]) {
      expect(tables).toContain(t);
    }
    p.close();
    expect(fs.readdirSync(dir).filter((f) => f.includes('.bak-'))).toEqual([]);
    // Reopening runs nothing.
    const again = openProject(file);
    expect(again.migration).toBeNull();
    again.close();
  });

  it('migrates an older file in one transaction after backing it up to <file>.bak-v<old>', () => {
    const dir = tempDir();
    const file = path.join(dir, 'old.flipbook');
    const real = loadMigrations();
    const db = new Database(file);
    migrate(db, file, real);
    db.prepare('INSERT INTO models (name) VALUES (?)').run('kept');
    const extra = [...real, { version: latestVersion(real) + 10, name: 'add-note', sql: 'ALTER TABLE models ADD COLUMN note TEXT;' }];
    const result = migrate(db, file, extra);
    expect(result).toEqual({ from: latestVersion(real), to: latestVersion(real) + 10, backup: `${file}.bak-v${latestVersion(real)}` });
    expect(db.pragma('user_version', { simple: true })).toBe(latestVersion(real) + 10);
    expect(db.prepare('SELECT name, note FROM models').all()).toEqual([{ name: 'kept', note: null }]);
    db.close();
    const backup = new Database(result.backup!, { readonly: true });
    expect(backup.pragma('user_version', { simple: true })).toBe(latestVersion(real));
    expect(backup.prepare('SELECT name FROM models').pluck().all()).toEqual(['kept']);
    backup.close();
  });

  it('leaves the file at its old version when a step fails (all steps are one transaction)', () => {
    const dir = tempDir();
    const file = path.join(dir, 'fail.flipbook');
    const real = loadMigrations();
    const db = new Database(file);
    migrate(db, file, real);
    const v = latestVersion(real);
    const broken = [
      ...real,
      { version: v + 10, name: 'ok', sql: 'CREATE TABLE extra (x INTEGER);' },
      { version: v + 20, name: 'bad', sql: 'ALTER TABLE no_such_table ADD COLUMN y TEXT;' },
    ];
    expect(() => migrate(db, file, broken)).toThrow(/no_such_table/);
    expect(db.pragma('user_version', { simple: true })).toBe(v);
    expect(db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'extra'").pluck().get()).toBe(0);
    db.close();
  });

  it('refuses a file written by a newer Flipbook with a clear message', () => {
    const dir = tempDir();
    const file = path.join(dir, 'newer.flipbook');
    openProject(file, { create: true }).close();
    const db = new Database(file);
    db.pragma(`user_version = ${latestVersion() + 10}`);
    db.close();
    expect(() => openProject(file)).toThrow(ProjectVersionError);
    expect(() => openProject(file)).toThrow(`was written by a newer Flipbook (schema ${latestVersion() + 10}; this one knows up to ${latestVersion()}): update Flipbook`);
    expect(() => openProject(file, { readOnly: true })).toThrow(ProjectVersionError);
    // The refusal released the lock: nothing is left behind.
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  it('refuses a missing file without create, and a file that is not SQLite', () => {
    const dir = tempDir();
    expect(() => openProject(path.join(dir, 'missing.flipbook'))).toThrow(ProjectOpenError);
    const junk = path.join(dir, 'junk.flipbook');
    fs.writeFileSync(junk, 'this is not a database, just text that is long enough to have a header'.repeat(20));
    expect(() => openProject(junk)).toThrow(/not a Flipbook project/);
    expect(fs.existsSync(`${junk}.lock`)).toBe(false);
  });
});

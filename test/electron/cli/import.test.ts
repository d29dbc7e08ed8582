import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openProject } from '../../../electron/store/index';
import { tempDir } from '../../temp-dir';
import { flipbook, writePerItem } from './cli-helpers';

const hash = (f: string): string => crypto.createHash('sha256').update(fs.readFileSync(f)).digest('hex');

describe('flipbook import', () => {
  it('creates the project, reports what it added, and is idempotent', () => {
    const dir = tempDir('flipbook-cli-import-');
    const csv = path.join(dir, 'per_item.csv');
    writePerItem(csv, 'm1', 'S', { q1: { textonly: ['B', 0.3], '16f_151k': ['A', 0.9] }, q2: { textonly: ['A', 0.6], '16f_151k': ['C', 0.4] } });
    const project = path.join(dir, 'p.flipbook');
    const first = flipbook('import', csv, '--project', project, '--json');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ created: true, itemsAdded: 2, responsesAdded: 4, models: ['m1'], splits: ['S'], configs: ['16f_151k', 'textonly'] });
    // The new project was filled under a temp name with a rollback journal: what is in place
    // is one whole file in WAL mode, with no temp, journal or log beside it.
    expect(fs.readdirSync(dir).sort()).toEqual(['p.flipbook', 'per_item.csv']);
    const db = new Database(project, { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
    const text = flipbook('import', csv, '--project', project);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('responses: 0 added, 0 updated');
    const p = openProject(project, { readOnly: true });
    expect(Array.from(p.loadMatrix('m1', 'S').correct)).toEqual([0, 1, 1, 0]);
    p.close();
  });

  it('rejects a bad file with file:line and leaves the project untouched (all paths or none)', () => {
    const dir = tempDir('flipbook-cli-import-');
    const good = path.join(dir, 'good.csv');
    writePerItem(good, 'm1', 'S', { q1: { textonly: ['B', 0.3] } });
    const project = path.join(dir, 'p.flipbook');
    expect(flipbook('import', good, '--project', project).code).toBe(0);
    const before = hash(project);
    const other = path.join(dir, 'other.csv');
    writePerItem(other, 'm2', 'S', { q9: { textonly: ['A', 0.5] } });
    const clash = path.join(dir, 'clash.csv');
    // Same cell as good.csv with another prediction: a conflict on line 2.
    writePerItem(clash, 'm1', 'S', { q1: { textonly: ['C', 0.3] } });
    const r = flipbook('import', other, clash, '--project', project);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/clash\.csv:2: /);
    expect(hash(project)).toBe(before);
    const p = openProject(project, { readOnly: true });
    expect(p.listModels()).toEqual(['m1']);
    p.close();
  });

  it('does not leave a new project behind when the import is rejected', () => {
    const dir = tempDir('flipbook-cli-import-');
    const bad = path.join(dir, 'bad.csv');
    fs.writeFileSync(bad, 'sample_id,model,split,config,frame_count\nq1,m,S,16f_151k,notanumber\n');
    const project = path.join(dir, 'new.flipbook');
    const r = flipbook('import', bad, '--project', project);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/bad\.csv:/);
    expect(fs.existsSync(project)).toBe(false);
  });

  it('has --help and exits 2 on bad usage', () => {
    const help = flipbook('import', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: flipbook import <path>\.\.\. --project P/);
    expect(flipbook('import', 'x.csv').code).toBe(2);
    expect(flipbook('import', '--project', 'p.flipbook').code).toBe(2);
    expect(flipbook('import', 'x.csv', '--project', 'p.flipbook', '--bogus').code).toBe(2);
  });
});

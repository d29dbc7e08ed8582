/**
 * Making a new project whole or not at all (electron/store/project.ts `createProjectWith`,
 * docs/security.md "The project file"): built under a private temp name, filled, linked into
 * place in WAL mode with nothing beside it; refused over an existing file; a failing fill
 * leaves nothing; a killed run's temp is removed first, a live one's kept.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ProjectOpenError } from '../../../electron/store/errors';
import { createProjectWith, openProject, projectFiles } from '../../../electron/store/project';
import { batch, config, deadPid, response, tempDir } from './helpers';

const fill = (p: Parameters<Parameters<typeof createProjectWith>[1]>[0]) =>
  p.applyImport(batch('a.csv', { configs: [config('8f', 8)], responses: [response({ sampleId: 'q1', config: '8f', line: 2, pred: 'A' })] }));

describe('creating a project', () => {
  it("is filled under a temp name and appears whole, in WAL mode, with the fill's result", () => {
    const dir = path.join(tempDir('flipbook-create-'), 'sub', 'dir');
    const file = path.join(dir, 'p.flipbook');
    let during: string[] = [];
    const summary = createProjectWith(file, (p) => {
      during = fs.readdirSync(dir);
      expect(p.path).not.toBe(file);
      return fill(p);
    });
    expect(summary.responsesAdded).toBe(1);
    // While it is filled, only the temp (and its lock) is there.
    expect(during).toContain(`.p.flipbook.tmp-${process.pid}`);
    expect(during.every((n) => n.startsWith(`.p.flipbook.tmp-${process.pid}`))).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(['p.flipbook']);
    const db = new Database(file, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
    const p = openProject(file);
    expect(p.countItems()).toBe(1);
    p.close();
  });

  it('is refused over an existing file, naming it, which stays as it was', () => {
    const file = path.join(tempDir('flipbook-create-'), 'p.flipbook');
    fs.writeFileSync(file, 'mine');
    expect(() => createProjectWith(file, fill)).toThrow(new ProjectOpenError(file, 'already exists'));
    expect(fs.readFileSync(file, 'utf8')).toBe('mine');
  });

  it('a fill that fails leaves no project and no temp, and the error is its own', () => {
    const dir = tempDir('flipbook-create-');
    const file = path.join(dir, 'p.flipbook');
    expect(() =>
      createProjectWith(file, () => {
        throw new Error('bad file');
      }),
    ).toThrow('bad file');
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("a killed run's temp project is removed first; a live process's is left", () => {
    const dir = tempDir('flipbook-create-');
    const dead = `.p.flipbook.tmp-${deadPid()}`;
    const live = `.p.flipbook.tmp-${process.ppid}`;
    for (const n of [dead, `${dead}-wal`, live]) fs.writeFileSync(path.join(dir, n), 'x');
    createProjectWith(path.join(dir, 'p.flipbook'), fill);
    expect(fs.readdirSync(dir).sort()).toEqual([live, 'p.flipbook'].sort());
  });

  it("a project's files: itself, its logs and its lock", () => {
    expect(projectFiles('/x/p.flipbook')).toEqual([
      '/x/p.flipbook',
      '/x/p.flipbook-wal',
      '/x/p.flipbook-shm',
      '/x/p.flipbook-journal',
      '/x/p.flipbook.lock',
      '/x/p.flipbook.lock.db',
    ]);
  });
});

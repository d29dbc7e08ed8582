/**
 * The project's codebook versions (electron/store/annotation-codebooks.ts, docs/team-sync.md
 * §1), on a real project file: the current codebook and its fallbacks, a saved change as a new
 * version, versions from a team space added or refused whole, and when two codebooks say the
 * same thing.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { canonicalJson, CodebookConflictError, sameCodebook, type StoredCodebook } from '../../../electron/store/annotation-codebooks';
import { createAnnotationStore, type AnnotationStore } from '../../../electron/store/annotations';
import { openProject } from '../../../electron/store/index';
import type { Codebook } from '../../../shared/domain/annotations';
import { tempDir } from './helpers';

const pathway = (id: string, label = id) => ({ id, label, description: '', applies_to: null, shortcut: null });
const codebook = (version: number, ...ids: string[]): Codebook => ({ id: 'lab', version, pathways: ids.map((p) => pathway(p)) });
const stored = (version: number, ...ids: string[]): StoredCodebook => ({ version, codebook: codebook(version, ...ids), createdAt: `2026-12-0${version}T10:00:00.000Z` });

/**
 * The annotation store of a migrated project file with no codebook stored, over its own
 * connection: `defaultCodebook` stands for assets/codebook.json (null: none shipped).
 */
function bare(defaultCodebook: Codebook | null, writable = true): { store: AnnotationStore; db: Database.Database } {
  const file = path.join(tempDir('flipbook-codebooks-'), 'p.flipbook');
  openProject(file, { create: true }).close();
  const db = new Database(file);
  db.exec('DELETE FROM codebooks');
  const store = createAnnotationStore(db, {
    readOnly: !writable,
    assertWritable: () => {
      if (!writable) throw new Error('read-only');
    },
    defaultCodebook: () => defaultCodebook,
  });
  return { store, db };
}

const versions = (db: Database.Database) => db.prepare('SELECT version, codebook_id AS id, json FROM codebooks ORDER BY version').all();

describe('two codebooks say the same thing', () => {
  it('regardless of key order and of the defaults zod fills in', () => {
    const a = { id: 'lab', version: 2, pathways: [{ id: 'p', label: 'P' }] };
    const b = { pathways: [{ label: 'P', id: 'p', description: '' }], version: 2, id: 'lab' };
    expect(sameCodebook(a as Codebook, b as Codebook)).toBe(true);
  });

  it('not when a label, the order of the pathways, the version or an extra field differs', () => {
    const base = codebook(1, 'a', 'b');
    expect(sameCodebook(base, codebook(1, 'a', 'b'))).toBe(true);
    expect(sameCodebook(base, { ...base, pathways: [pathway('a', 'Changed'), pathway('b')] })).toBe(false);
    expect(sameCodebook(base, codebook(1, 'b', 'a'))).toBe(false);
    expect(sameCodebook(base, codebook(2, 'a', 'b'))).toBe(false);
    expect(sameCodebook(base, { ...base, note: 'x' } as Codebook)).toBe(false);
  });

  it('canonical JSON sorts object keys at every depth, keeps array order, and drops undefined fields', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: null, y: 'q' }], c: undefined } })).toBe('{"a":{"d":[2,{"y":"q","z":null}]},"b":1}');
    expect(canonicalJson([3, 1])).toBe('[3,1]');
    expect(canonicalJson('x')).toBe('"x"');
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson({})).toBe('{}');
    expect(canonicalJson([])).toBe('[]');
  });
});

describe('the current codebook', () => {
  it('is the default asset’s while none is stored, else an empty one; its version likewise', () => {
    const withDefault = bare(codebook(3, 'a'));
    expect(withDefault.store.getCodebook()).toEqual(codebook(3, 'a'));
    expect(withDefault.store.codebookHistory()).toEqual([]);
    const none = bare(null);
    expect(none.store.getCodebook()).toEqual({ id: 'flipbook-default', version: 0, pathways: [] });
    // An edit made then records the version it was made under: none at all.
    none.store.apply({ op: 'setStatus', model: 'm', split: 's', sampleId: 'q1', status: 'done' }, 'ana');
    expect(none.store.exportEvents({}).map((e) => e.codebookVersion)).toEqual([null]);
    withDefault.store.apply({ op: 'setStatus', model: 'm', split: 's', sampleId: 'q1', status: 'done' }, 'ana');
    expect(withDefault.store.exportEvents({}).map((e) => e.codebookVersion)).toEqual([3]);
  });

  it('is the latest stored version once one is stored, and edits record its number', () => {
    const { store } = bare(codebook(1, 'a'));
    store.setCodebook(codebook(1, 'a', 'b'));
    store.setCodebook(codebook(1, 'a', 'b', 'c'));
    expect(store.getCodebook()).toEqual(codebook(3, 'a', 'b', 'c'));
    store.apply({ op: 'setStatus', model: 'm', split: 's', sampleId: 'q1', status: 'done' }, 'ana');
    expect(store.exportEvents({}).map((e) => e.codebookVersion)).toEqual([3]);
  });
});

describe('saving a codebook', () => {
  it('stores the default as-is on its first save when unchanged, and a change as the next version', () => {
    const { store, db } = bare(codebook(4, 'a'));
    expect(store.setCodebook(codebook(4, 'a'))).toEqual(codebook(4, 'a'));
    expect(versions(db)).toEqual([{ version: 4, id: 'lab', json: JSON.stringify(codebook(4, 'a')) }]);
    // Saved again unchanged: nothing new.
    expect(store.setCodebook(codebook(4, 'a'))).toEqual(codebook(4, 'a'));
    expect(store.codebookVersions().map((v) => v.version)).toEqual([4]);
    // A change whose own number is lower still comes after the current one.
    expect(store.setCodebook(codebook(0, 'a', 'b'))).toEqual(codebook(5, 'a', 'b'));
    // One that names a later number keeps it.
    expect(store.setCodebook(codebook(9, 'a'))).toEqual(codebook(9, 'a'));
    expect(store.codebookVersions().map((v) => v.version)).toEqual([4, 5, 9]);
  });

  it('a changed first save bumps past the default; with no default, the codebook keeps its own number', () => {
    const changed = bare(codebook(4, 'a'));
    expect(changed.store.setCodebook(codebook(4, 'a', 'b')).version).toBe(5);
    const none = bare(null);
    expect(none.store.setCodebook(codebook(2, 'a')).version).toBe(2);
    expect(none.store.setCodebook(codebook(2, 'a')).version).toBe(2);
    expect(none.store.codebookVersions().map((v) => v.version)).toEqual([2]);
  });

  it('is refused in a read-only project, and an invalid codebook is refused before anything is stored', () => {
    const ro = bare(codebook(1, 'a'), false);
    expect(() => ro.store.setCodebook(codebook(1, 'a', 'b'))).toThrow('read-only');
    expect(() => ro.store.importCodebooks([stored(1, 'a')])).toThrow('read-only');
    expect(versions(ro.db)).toEqual([]);
    const rw = bare(null);
    expect(() => rw.store.setCodebook({ id: '', version: 1, pathways: [] })).toThrow();
    expect(versions(rw.db)).toEqual([]);
  });
});

describe('codebook versions from a team space', () => {
  it('adds the versions the project lacks, with their own dates, and counts only those', () => {
    const { store } = bare(null);
    expect(store.importCodebooks([stored(1, 'a'), stored(2, 'a', 'b')])).toEqual({ added: 2 });
    expect(store.importCodebooks([stored(1, 'a'), stored(2, 'a', 'b'), stored(3, 'a', 'b', 'c')])).toEqual({ added: 1 });
    expect(store.codebookHistory()).toEqual([stored(1, 'a'), stored(2, 'a', 'b'), stored(3, 'a', 'b', 'c')]);
    expect(store.getCodebook()).toEqual(codebook(3, 'a', 'b', 'c'));
    // The same version twice in one delivery counts once.
    const again = bare(null);
    expect(again.store.importCodebooks([stored(1, 'a'), stored(1, 'a')])).toEqual({ added: 1 });
  });

  it('one with other content under a number the project has is refused, and nothing of the delivery is added', () => {
    const { store, db } = bare(null);
    store.importCodebooks([stored(1, 'a')]);
    const before = versions(db);
    let err: unknown;
    try {
      store.importCodebooks([stored(2, 'a', 'b'), { ...stored(1, 'z'), codebook: codebook(1, 'z') }]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CodebookConflictError);
    expect((err as Error).message).toBe("codebook version 1 differs from this project's version 1");
    expect(versions(db)).toEqual(before);
  });

  it('one whose codebook names another version than it is stored under is refused, nothing added', () => {
    const { store, db } = bare(null);
    expect(() => store.importCodebooks([stored(1, 'a'), { version: 2, codebook: codebook(3, 'a'), createdAt: 'now' }])).toThrow(
      new CodebookConflictError('codebook version 2 names itself version 3'),
    );
    expect(versions(db)).toEqual([]);
  });

  it('content the same up to key order and defaults is the same version, not a conflict', () => {
    const { store } = bare(null);
    store.importCodebooks([stored(1, 'a')]);
    const reordered = { version: 1, createdAt: 'later', codebook: { pathways: [{ shortcut: null, label: 'a', applies_to: null, id: 'a' }], version: 1, id: 'lab' } as Codebook };
    expect(store.importCodebooks([reordered])).toEqual({ added: 0 });
    expect(store.codebookHistory()).toEqual([stored(1, 'a')]);
  });
});

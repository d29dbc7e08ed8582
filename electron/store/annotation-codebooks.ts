/**
 * The project's codebook versions (docs/team-sync.md §1): the current one (or the default
 * asset's), a saved change as a new version, and versions from a team space added when this
 * project lacks them and refused when it holds other content under the same number.
 */
import { codebookSchema, EMPTY_CODEBOOK, type Codebook } from '../../shared/domain/annotations';
import type { AnnotationDb, AnnotationStatements, AnnotationStoreOptions } from './annotation-tables';

/** One stored codebook version, as a team space carries it (docs/team-sync.md §1). */
export interface StoredCodebook {
  version: number;
  codebook: Codebook;
  createdAt: string;
}

/** A codebook version arriving from elsewhere conflicts with the stored one of the same number. */
export class CodebookConflictError extends Error {}

/** Key order and zod defaults aside, whether two codebooks say the same thing (id, version, pathways). */
export function sameCodebook(a: Codebook, b: Codebook): boolean {
  return canonicalJson(codebookSchema.parse(a)) === canonicalJson(codebookSchema.parse(b));
}

/** A JSON value's text with object keys sorted: two values are the same JSON when these are equal. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** Every stored codebook version, oldest first. */
export const codebookHistory = (q: AnnotationStatements): StoredCodebook[] =>
  q.codebookHistory.all().map((r) => ({ version: r.version, codebook: codebookSchema.parse(JSON.parse(r.json)), createdAt: r.created_at }));

/** The current codebook: the latest stored version, else the default asset's, else an empty one. */
export function currentCodebook(q: AnnotationStatements, options: AnnotationStoreOptions): Codebook {
  const row = q.codebookCurrent.get();
  if (row) return codebookSchema.parse(JSON.parse(row.json));
  return options.defaultCodebook() ?? EMPTY_CODEBOOK;
}

/** The version a new event is recorded under (null: no codebook at all). */
export const currentCodebookVersion = (q: AnnotationStatements, options: AnnotationStoreOptions): number | null =>
  q.codebookCurrent.get()?.version ?? options.defaultCodebook()?.version ?? null;

/** Stores the codebook; a changed definition bumps the version. Returns what is now current. */
export function setCodebook(a: AnnotationDb, cb: unknown): Codebook {
  const { db, q, options } = a;
  options.assertWritable();
  const next = codebookSchema.parse(cb);
  return db.transaction((): Codebook => {
    const row = q.codebookCurrent.get();
    const current = row ? codebookSchema.parse(JSON.parse(row.json)) : options.defaultCodebook();
    const definition = (c: Codebook): string => JSON.stringify({ ...c, version: 0 });
    const same = current !== null && definition(current) === definition(next);
    if (row && same) return current;
    // The default codebook (assets/) is stored as-is on first save; any change bumps it.
    const version = current ? (same ? current.version : Math.max(current.version + 1, next.version)) : next.version;
    const stored = { ...next, version };
    q.codebookInsert.run(version, stored.id, JSON.stringify(stored), new Date().toISOString());
    return stored;
  })();
}

/**
 * Adds the codebook versions this project lacks (from a team space) in one transaction; a
 * version it has with other content is refused (CodebookConflictError) and nothing changes.
 */
export function importCodebooks(a: AnnotationDb, versions: StoredCodebook[]): { added: number } {
  const { db, q, options } = a;
  options.assertWritable();
  const incoming = versions.map((v) => ({ ...v, codebook: codebookSchema.parse(v.codebook) }));
  return db.transaction((): { added: number } => {
    const have = new Map(codebookHistory(q).map((v) => [v.version, v]));
    let added = 0;
    for (const v of incoming) {
      if (v.codebook.version !== v.version) throw new CodebookConflictError(`codebook version ${v.version} names itself version ${v.codebook.version}`);
      const mine = have.get(v.version);
      if (mine) {
        if (!sameCodebook(mine.codebook, v.codebook)) throw new CodebookConflictError(`codebook version ${v.version} differs from this project's version ${v.version}`);
        continue;
      }
      q.codebookInsert.run(v.version, v.codebook.id, JSON.stringify(v.codebook), v.createdAt);
      have.set(v.version, v);
      added++;
    }
    return { added };
  })();
}

/**
 * The codebook versions a team space carries (docs/team-sync.md §1): every version any
 * project of the space has stored, keyed by version number. A version number means one
 * definition everywhere: a project that stored other content under a number the space has is
 * refused before anything moves, with what differs in words.
 */
import * as z from 'zod';
import { codebookSchema, type Codebook } from '../../shared/domain/annotations';
import { sameCodebook, type StoredCodebook } from '../store/annotation-codebooks';

/** A space's codebook as the server sends it (json_build_array in sync.ts's HELLO_SQL). */
const wireCodebookSchema = z.tuple([z.number().int().nonnegative(), codebookSchema, z.string()]);

/**
 * The space's valid versions, and a line for each row that is not a codebook naming its own
 * version (stored before the server checked them, docs/team-sync.md §3): such a row is left
 * out, so one bad row cannot stop every member's sync.
 */
export function parseSpaceCodebooks(wire: unknown): { versions: StoredCodebook[]; invalid: string[] } {
  const versions: StoredCodebook[] = [];
  const invalid: string[] = [];
  for (const row of z.array(z.unknown()).parse(wire ?? [])) {
    const r = wireCodebookSchema.safeParse(row);
    if (r.success && r.data[1].version === r.data[0]) versions.push({ version: r.data[0], codebook: r.data[1], createdAt: r.data[2] });
    else invalid.push(`codebook version ${Array.isArray(row) ? String(JSON.stringify(row[0])).slice(0, 40) : '?'}: not a codebook naming its own version`);
  }
  return { versions, invalid };
}

export interface CodebookPlan {
  /** Versions the project has and the space lacks. */
  toPush: StoredCodebook[];
  /** Versions the space has and the project lacks. */
  toPull: StoredCodebook[];
  /** One line per version stored on both sides with different content. */
  conflicts: string[];
}

export function planCodebooks(mine: readonly StoredCodebook[], space: readonly StoredCodebook[]): CodebookPlan {
  const theirs = new Map(space.map((v) => [v.version, v]));
  const ours = new Map(mine.map((v) => [v.version, v]));
  const conflicts: string[] = [];
  for (const v of mine) {
    const t = theirs.get(v.version);
    if (t && !sameCodebook(t.codebook, v.codebook)) conflicts.push(`version ${v.version}: ${describeCodebookDifference(t.codebook, v.codebook)}`);
  }
  return {
    toPush: mine.filter((v) => !theirs.has(v.version)),
    toPull: space.filter((v) => !ours.has(v.version)),
    conflicts,
  };
}

/** What differs between the space's codebook and the project's of the same version, in words. */
export function describeCodebookDifference(space: Codebook, mine: Codebook): string {
  const out: string[] = [];
  if (space.id !== mine.id) out.push(`the space's codebook is '${space.id}', this project's '${mine.id}'`);
  const ids = (c: Codebook): string[] => c.pathways.map((p) => p.id);
  const missing = ids(space).filter((id) => !ids(mine).includes(id));
  const extra = ids(mine).filter((id) => !ids(space).includes(id));
  if (missing.length) out.push(`pathways the space has and this project lacks: ${missing.join(', ')}`);
  if (extra.length) out.push(`pathways this project has and the space lacks: ${extra.join(', ')}`);
  const byId = new Map(space.pathways.map((p) => [p.id, p]));
  const changed = mine.pathways.filter((p) => {
    const s = byId.get(p.id);
    return s !== undefined && !sameCodebook({ id: 'pathway', version: 0, pathways: [s] }, { id: 'pathway', version: 0, pathways: [p] });
  });
  if (changed.length) out.push(`pathways defined differently: ${changed.map((p) => p.id).join(', ')}`);
  if (out.length === 0) out.push('the same pathways in another order, or other fields differ');
  return out.join('; ');
}

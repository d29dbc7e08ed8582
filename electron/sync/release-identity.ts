/**
 * A release's identity for team spaces (docs/team-sync.md): the sha256 of `labels/per_item.csv`
 * exactly as `flipbook export` writes it, plus what it holds (models, splits, configs, rows),
 * so that a refusal can say *what* differs rather than only that two hashes differ. Responses
 * are never synced: every annotator imports the same release, and this is how a space checks it.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { compareCodePoints } from '../../shared/engine/config';
import { perItemCsvBytes } from '../release/per-item-csv';
import type { Project } from '../store/project';

export const releaseIdentitySchema = z.object({
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  rows: z.number().int().nonnegative(),
  models: z.array(z.string()),
  splits: z.array(z.string()),
  configs: z.array(z.string()),
});
export type ReleaseIdentity = z.infer<typeof releaseIdentitySchema>;

type IdentitySource = Pick<Project, 'scanColumns' | 'listConfigs' | 'listItems' | 'inputsVersion'>;

/**
 * Kept per project until its inputs version changes (an import in any process bumps it): an
 * automatic sync every few minutes would otherwise serialise and hash the whole per_item.csv
 * each round for the same answer.
 */
const kept = new WeakMap<IdentitySource, { version: number; identity: ReleaseIdentity }>();

export function releaseIdentity(project: IdentitySource): ReleaseIdentity {
  const version = project.inputsVersion();
  const hit = kept.get(project);
  if (hit?.version === version) return hit.identity;
  const identity = computeIdentity(project);
  kept.set(project, { version, identity });
  return identity;
}

function computeIdentity(project: IdentitySource): ReleaseIdentity {
  const grids = project.scanColumns();
  // Items only supply ground-truth letters that cells lack; passing them always writes the
  // same bytes as the export does.
  const bytes = perItemCsvBytes(grids, project.listConfigs(), grids.length ? project.listItems() : []);
  let rows = 0;
  for (const g of grids) for (const c of g.columns) rows += c.length;
  return {
    sha256: createHash('sha256').update(bytes).digest('hex'),
    rows,
    models: [...new Set(grids.map((g) => g.model))].sort(compareCodePoints),
    splits: [...new Set(grids.map((g) => g.split))].sort(compareCodePoints),
    configs: [...new Set(grids.flatMap((g) => g.columns.map((c) => c.config)))].sort(compareCodePoints),
  };
}

/** What differs between the space's release and the project's, in words; [] when identical. */
export function describeReleaseDifference(space: ReleaseIdentity, mine: ReleaseIdentity): string[] {
  if (space.sha256 === mine.sha256) return [];
  const out: string[] = [];
  const setDiff = (what: string, a: string[], b: string[]): void => {
    const missing = a.filter((x) => !b.includes(x));
    const extra = b.filter((x) => !a.includes(x));
    if (missing.length) out.push(`${what} the space has and this project lacks: ${missing.join(', ')}`);
    if (extra.length) out.push(`${what} this project has and the space lacks: ${extra.join(', ')}`);
  };
  setDiff('models', space.models, mine.models);
  setDiff('splits', space.splits, mine.splits);
  setDiff('configs', space.configs, mine.configs);
  if (space.rows !== mine.rows) out.push(`labels/per_item.csv rows: the space's release has ${space.rows}, this project ${mine.rows}`);
  if (out.length === 0) out.push('the same models, splits, configs and row count, but different responses (predictions, correctness or provenance)');
  out.push(`labels/per_item.csv sha256: space ${space.sha256.slice(0, 12)}…, project ${mine.sha256.slice(0, 12)}…`);
  return out;
}

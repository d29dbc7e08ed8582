/**
 * The overview's numbers, straight from the engine: per (model, split) the
 * MCQA metrics, every transition's rescued/harmed flows with McNemar p, pairwise wins,
 * trajectories, iso-compute groups and a default confidence cascade; across models the
 * matched-grid table. Nothing is recomputed here — only reshaped for the transport — so the
 * overview shows exactly what `flipbook metrics` prints and the release exports.
 */
import type { Project } from '../store/project';
import type { ResponseMatrix } from '../../shared/domain/types';
import type { CascadePointDto, MatchedGridTable, Overview, OverviewCascade, OverviewGrid, OverviewMetrics } from '../../shared/api/overview';
import { mcqaMetrics, pairwiseWins, transitions, type McqaMetrics } from '../../shared/engine/mcqa';
import { trajectories } from '../../shared/engine/trajectories';
import { isoComputeGroups } from '../../shared/engine/iso-compute';
import { cascade, type CascadePoint } from '../../shared/engine/cascade';
import { ladder } from '../../shared/engine/config';
import { planGrid } from '../../shared/engine/grid-plan';
import { configIndex } from '../../shared/engine/matrix';
import { matchedGridMetrics, proposeMatchedGrid } from '../../shared/engine/matched-grid';
import { derivedEntry } from './derived-entry';

const toMetrics = (m: McqaMetrics): OverviewMetrics => ({ ...m, configs: [...m.configs] });

const point = (p: CascadePoint): CascadePointDto => ({
  tau: Number.isFinite(p.tau) ? p.tau : null,
  correct: p.correct,
  accuracy: p.accuracy,
  meanSharedCost: p.meanSharedCost,
  meanUnsharedCost: p.meanUnsharedCost,
});

/** Visual rungs of the budget ladder, cheapest first: the default cascade chain. */
export function cascadeBudgetsOf(m: ResponseMatrix): string[] {
  return ladder(planGrid(m).specs)
    .filter((c) => c.frames > 0)
    .map((c) => c.key);
}

function hasSignal(m: ResponseMatrix, budgets: readonly string[]): boolean {
  const C = m.configs.length;
  for (const k of budgets) {
    const c = configIndex(m, k);
    for (let r = 0; r < m.itemIds.length; r++) {
      if (!Number.isNaN(m.confidence[r * C + c]!) || !Number.isNaN(m.margin[r * C + c]!)) return true;
    }
  }
  return false;
}

/** The cascade of docs/metrics.md §5 over `budgets` against `reference`, or the reason there is none. */
export function cascadeFor(
  m: ResponseMatrix,
  budgets: readonly string[],
  reference: string,
  seed = 0,
): { cascade: OverviewCascade | null; note: string | null } {
  if (m.kind !== 'mcqa') return { cascade: null, note: 'the cascade is defined for MCQA grids' };
  if (budgets.length < 2) return { cascade: null, note: 'a cascade needs at least two visual budgets on one ladder' };
  if (!hasSignal(m, budgets)) return { cascade: null, note: 'no confidence or margin is recorded for these budgets, so there is no cascade to draw' };
  const r = cascade(m, { budgets, reference, seed });
  const op = r.operatingPoint;
  return {
    cascade: {
      budgets: r.budgets,
      reference: r.reference,
      n: r.n,
      nExcluded: r.nExcluded,
      signal: r.signal,
      referenceAccuracy: r.referenceAccuracy,
      referenceFrames: r.referenceFrames,
      pareto: r.pareto.map(point),
      operatingPoint: op ? { ...point(op), savingVsReference: op.savingVsReference, unsharedSavingVsReference: op.unsharedSavingVsReference } : null,
      heldOut: { ...r.heldOut },
    },
    note: null,
  };
}

export function gridOverview(m: ResponseMatrix, matchedGrid: readonly string[] | null): OverviewGrid {
  const base = { model: m.model, split: m.split, kind: m.kind };
  if (m.kind !== 'mcqa') {
    return {
      ...base,
      metrics: null,
      transitions: [],
      wins: { configs: [], n: 0, wins: [] },
      classes: {},
      rows: [],
      iso: [],
      cascadeBudgets: [],
      cascade: null,
      cascadeNote: 'open-ended grid: see `flipbook metrics` for its oracle gap and regressions',
    };
  }
  const classes: Record<string, number> = {};
  const rows: OverviewGrid['rows'] = [];
  for (const t of trajectories(m, { matchedGrid })) {
    if (!t.complete) continue;
    const cls = t.trajectoryClass;
    if (cls) classes[cls] = (classes[cls] ?? 0) + 1;
    rows.push({ sampleId: t.sampleId, pattern: t.pattern, cls, confused: t.isVisuallyConfused, textOverwritten: t.isTextOverwritten, terminalRegression: t.terminalRegression });
  }
  const budgets = cascadeBudgetsOf(m);
  const c = cascadeFor(m, budgets, budgets[budgets.length - 1] ?? '');
  return {
    ...base,
    metrics: toMetrics(mcqaMetrics(m)),
    transitions: transitions(m),
    wins: pairwiseWins(m),
    classes,
    rows,
    iso: isoComputeGroups(m).groups.map((g) => ({ ...g, pairs: g.pairs.map((p) => ({ ...p })) })),
    cascadeBudgets: budgets,
    cascade: c.cascade,
    cascadeNote: c.note,
  };
}

function matchedGridSetting(project: Project): string[] | null {
  const v = project.getSetting<unknown>('matchedGrid');
  if (Array.isArray(v) && v.length > 0 && v.every((x): x is string => typeof x === 'string')) return v;
  if (typeof v === 'string' && v.trim() !== '') return v.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return null;
}

/**
 * The matched grid (the project's setting, else the engine's proposal naming whom it leaves
 * out and why) and each split's metrics over it on the items complete for every kept model.
 */
export function matchedGridTable(project: Project, matrices: readonly ResponseMatrix[]): MatchedGridTable {
  const setting = matchedGridSetting(project);
  const grids = project.listGrids().filter((g) => g.kind === 'mcqa');
  const proposal = setting ? null : proposeMatchedGrid(grids);
  const configs = setting ?? proposal?.configs ?? [];
  const splits: MatchedGridTable['splits'] = [];
  if (configs.length > 0) {
    const bySplit = new Map<string, ResponseMatrix[]>();
    for (const m of matrices) if (m.kind === 'mcqa') bySplit.set(m.split, [...(bySplit.get(m.split) ?? []), m]);
    for (const [split, ms] of [...bySplit].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const r = matchedGridMetrics(ms, configs);
      splits.push({ split, nItems: r.itemIds.length, perModel: r.perModel.map((p) => ({ model: p.model, metrics: toMetrics(p.metrics) })), leftOut: r.leftOut });
    }
  }
  return { configs, source: setting ? 'setting' : 'proposed', leftOut: proposal?.leftOut ?? [], splits };
}

const memo = new WeakMap<Project, { inputs: number; value: Overview }>();

/**
 * The overview, computed once per import (or settings change) and kept in the project's
 * `derived` table, so opening the overview again — in this process, after a restart or in
 * another window — costs a read, not the engine's pass over every matrix (docs/architecture.md
 * "The queue at lab scale"). A read-only project keeps it in memory only.
 */
export function overviewOf(project: Project): Overview {
  const inputs = project.inputsVersion();
  const hit = memo.get(project);
  if (hit && hit.inputs === inputs) return hit.value;
  const stored = derivedEntry(project.db, 'overview');
  const row = stored.read();
  let value: Overview;
  if (row && row.inputs === inputs && row.json !== null) value = JSON.parse(row.json) as Overview;
  else {
    value = computeOverview(project);
    if (!project.readOnly) {
      try {
        stored.write(inputs, value);
      } catch (e) {
        // Keeping it is an optimisation: while an import's worker holds the write lock the
        // figures are still answered (and kept in memory), and stored by a later view.
        if (!(e instanceof Error && 'code' in e && String(e.code).startsWith('SQLITE_BUSY'))) throw e;
      }
    }
  }
  memo.set(project, { inputs, value });
  return value;
}

export function computeOverview(project: Project): Overview {
  const matrices = project.listGrids().map((g) => project.loadMatrix(g.model, g.split));
  const mg = matchedGridSetting(project);
  return { grids: matrices.map((m) => gridOverview(m, mg)), matchedGrid: matchedGridTable(project, matrices) };
}

/**
 * The overview's numbers, straight from the engine: per (model, split) the
 * MCQA metrics, every transition's rescued/harmed flows with McNemar p, pairwise wins,
 * trajectories, iso-compute groups and a default confidence cascade; across models the
 * matched-grid table. Nothing is recomputed here — only reshaped for the transport — so the
 * overview shows exactly what `flipbook metrics` prints and the release exports.
 */
import type { Project } from '../store/project';
import type { ResponseMatrix } from '../../shared/domain/types';
import {
  CASCADE_PARETO_POINTS,
  HEATMAP_ITEM_ROWS,
  HEATMAP_PATTERN_ROWS,
  type CascadePointDto,
  type MatchedGridTable,
  type OverviewCascade,
  type OverviewGrid,
  type OverviewHeatmap,
  type OverviewMark,
  type Overview,
  type OverviewMetrics,
  type OverviewOpen,
  type OverviewPatternRow,
  SCORE_BINS,
  scoreBin,
  type OverviewProtocol,
} from '../../shared/api/overview';
import { metricsFromTrajectories, pairwiseWins, transitions, type McqaMetrics } from '../../shared/engine/mcqa';
import { TRAJECTORY_CLASSES, trajectoryColumns, type TrajectoryColumns } from '../../shared/engine/trajectories';
import { loadRow } from '../../shared/engine/grid-plan';
import { compareCodePoints } from '../../shared/engine/config';
import { isoComputeGroups } from '../../shared/engine/iso-compute';
import { cascade, type CascadePoint } from '../../shared/engine/cascade';
import { ladder } from '../../shared/engine/config';
import { planGrid } from '../../shared/engine/grid-plan';
import { configIndex } from '../../shared/engine/matrix';
import { matchedGridMetrics, proposeMatchedGrid } from '../../shared/engine/matched-grid';
import { derivedEntry } from './derived-entry';
import { openMetrics } from '../../shared/engine/open-ended';
import { continuousTrajectories, type ContinuousTrajectory } from '../../shared/engine/continuous';
import { compareProtocols, protocolLabel, type MembershipChange, type ProtocolReport, type ProtocolSide } from '../../shared/engine/protocols';

const toMetrics = (m: McqaMetrics): OverviewMetrics => ({ ...m, configs: [...m.configs] });

/**
 * At most `max` points of a front, evenly spread over it with both ends kept: what the chart
 * draws. Every point sent is exact; the operating point and held-out figure are not touched.
 */
export function thinFront<T>(front: readonly T[], max: number): T[] {
  if (front.length <= max) return [...front];
  const out: T[] = [];
  for (let i = 0; i < max; i++) out.push(front[Math.round((i * (front.length - 1)) / (max - 1))]!);
  return out;
}

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
export function cascadeFor(m: ResponseMatrix, budgets: readonly string[], reference: string, seed = 0): { cascade: OverviewCascade | null; note: string | null } {
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
      pareto: thinFront(r.pareto, CASCADE_PARETO_POINTS).map(point),
      paretoPoints: r.pareto.length,
      operatingPoint: op ? { ...point(op), savingVsReference: op.savingVsReference, unsharedSavingVsReference: op.unsharedSavingVsReference } : null,
      heldOut: { ...r.heldOut },
    },
    note: null,
  };
}

/** The complete rows of a grid (matrix row order) with their pattern keys: one char per config, 1 correct / 0 wrong. */
function completePatterns(m: ResponseMatrix, t: TrajectoryColumns): { rows: number[]; patterns: string[] } {
  const G = t.plan.cols.length;
  const y = new Int8Array(G);
  const rows: number[] = [];
  const patterns: string[] = [];
  // Patterns repeat (at most 2^G distinct): each is made once per code and shared.
  const byCode = new Map<number, string>();
  for (let r = 0; r < t.complete.length; r++) {
    if (t.complete[r] !== 1) continue;
    loadRow(m, t.plan, r, y);
    let code = 1;
    for (let j = 0; j < G; j++) code = code * 2 + y[j]!;
    let p = G <= 50 ? byCode.get(code) : undefined;
    if (p === undefined) {
      p = Array.from(y, (v) => (v === 1 ? '1' : '0')).join('');
      if (G <= 50) byCode.set(code, p);
    }
    rows.push(r);
    patterns.push(p);
  }
  return { rows, patterns };
}

const clsName = (t: TrajectoryColumns, r: number): string | null => TRAJECTORY_CLASSES[t.trajectoryClass[r]!] ?? null;

/**
 * The heatmap's rows (docs/architecture.md "The overview at lab scale"): the items themselves
 * while a grid is small, and always its most frequent patterns (class and flags are functions
 * of the pattern) with one summary of the rest, so its size never follows the item count.
 */
export function heatmapOf(m: ResponseMatrix, t: TrajectoryColumns): OverviewHeatmap {
  const { rows, patterns } = completePatterns(m, t);
  const flags = (r: number) => ({
    cls: clsName(t, r),
    confused: t.visuallyConfused[r] === 1,
    textOverwritten: t.textOverwritten[r] === 1,
    terminalRegression: t.terminalRegression[r] === 1,
  });
  const groups = new Map<string, OverviewPatternRow>();
  rows.forEach((r, i) => {
    const p = patterns[i]!;
    const g = groups.get(p);
    if (g) g.n++;
    else groups.set(p, { pattern: p, n: 1, ...flags(r) });
  });
  const ranked = [...groups.values()].sort((a, b) => b.n - a.n || compareCodePoints(a.pattern, b.pattern));
  const shown = ranked.slice(0, HEATMAP_PATTERN_ROWS);
  const others = ranked.slice(HEATMAP_PATTERN_ROWS);
  let rest: OverviewHeatmap['rest'] = null;
  if (others.length > 0) {
    const correct = new Array<number>(t.plan.cols.length).fill(0);
    for (const o of others) for (let j = 0; j < correct.length; j++) if (o.pattern[j] === '1') correct[j]! += o.n;
    rest = { n: others.reduce((s, o) => s + o.n, 0), patterns: others.length, correct };
  }
  const items =
    rows.length > HEATMAP_ITEM_ROWS
      ? null
      : rows.map((r, i) => ({ sampleId: m.itemIds[r]!, pattern: patterns[i]!, ...flags(r) })).sort((a, b) => compareCodePoints(a.sampleId, b.sampleId));
  return { items, patterns: shown, rest };
}

/** The marks of a grid's own figures (the protocol marks need every config: protocolMarkItems). */
export type GridMark = Exclude<OverviewMark, { kind: 'protocolMoved' | 'recovered' }>;

/** The comparisons of a grid's other protocols as the overview draws them: counts, no item lists. */
export function protocolsOverview(report: ProtocolReport | null): OverviewProtocol[] {
  if (!report) return [];
  const side = (x: ProtocolSide) => ({
    n: x.n,
    visualConfusionRate: x.visualConfusionRate,
    terminalRegressionRate: x.terminalRegressionRate,
    textOverwriteRate: x.textOverwriteRate,
  });
  const moves = (x: MembershipChange) => ({ onlyMain: x.onlyMain.length, onlyVariant: x.onlyVariant.length, both: x.both, jaccard: x.jaccard });
  return report.variants.map((v) => ({
    protocol: v.protocol,
    configs: v.configs,
    differsIn: v.differsIn,
    agreement: v.agreement && {
      budgets: v.agreement.budgets,
      nCommon: v.agreement.nCommon,
      main: side(v.agreement.main),
      variant: side(v.agreement.variant),
      confused: moves(v.agreement.confused),
      terminalRegression: moves(v.agreement.terminalRegression),
      textOverwritten: v.agreement.textOverwritten && moves(v.agreement.textOverwritten),
    },
    agreementNote: v.agreementNote,
    recovery: {
      terminalConfig: v.recovery.terminalConfig,
      alternatives: v.recovery.alternatives,
      n: v.recovery.n,
      regressions: v.recovery.regressions,
      recovered: v.recovery.recovered,
      recoveryRate: v.recovery.recoveryRate,
      note: v.recovery.note,
    },
  }));
}

/**
 * The items of a protocol mark (docs/metrics.md §6) from the grid's every-config matrix: those
 * whose membership of a set changes between the main grid and the protocol, or the main grid's
 * terminal regressions the protocol recovers. Throws on a protocol the grid does not have.
 */
export function protocolMarkItems(all: ResponseMatrix, main: string, mark: Extract<OverviewMark, { kind: 'protocolMoved' | 'recovered' }>): string[] {
  const report = compareProtocols(all, main);
  if (!report) throw new Error(`${all.model} / ${all.split} has no grid of the main protocol ${protocolLabel(main)}`);
  if (mark.kind === 'recovered' && mark.protocol === null) return report.anyRecovery?.recoveredItems ?? [];
  const v = report.variants.find((x) => x.protocol === mark.protocol);
  if (!v) throw new Error(`${all.model} / ${all.split} has no protocol ${protocolLabel(mark.protocol ?? '')} to compare`);
  if (mark.kind === 'recovered') return v.recovery.recoveredItems;
  if (!v.agreement) throw new Error(`${protocolLabel(v.protocol)} shares no visual budget with the main grid of ${all.model} / ${all.split}`);
  const set = v.agreement[mark.set];
  if (!set) throw new Error(`${all.model} / ${all.split}: no text-only config in both grids, so no text-overwrite set`);
  if (mark.side === 'onlyMain') return set.onlyMain;
  if (mark.side === 'onlyVariant') return set.onlyVariant;
  return [...set.onlyMain, ...set.onlyVariant].sort(compareCodePoints);
}

export function gridOverview(m: ResponseMatrix, protocols: ProtocolReport | null = null): OverviewGrid {
  const base = { model: m.model, split: m.split, kind: m.kind, protocols: protocolsOverview(protocols) };
  if (m.kind !== 'mcqa') {
    const o = openOverview(m);
    return {
      ...base,
      metrics: null,
      open: o.open,
      transitions: [],
      wins: { configs: [], n: 0, wins: [] },
      classes: o.classes,
      heatmap: { items: [], patterns: [], rest: null },
      iso: [],
      cascadeBudgets: [],
      cascade: null,
      cascadeNote: 'the cascade is defined for MCQA grids',
    };
  }
  // One pass classifies every row and counts what §2 sums (equal to mcqaMetrics on the grid).
  const t = trajectoryColumns(m);
  const classes: Record<string, number> = {};
  for (let r = 0; r < t.complete.length; r++) {
    const cls = t.complete[r] === 1 ? clsName(t, r) : null;
    if (cls) classes[cls] = (classes[cls] ?? 0) + 1;
  }
  const budgets = cascadeBudgetsOf(m);
  const c = cascadeFor(m, budgets, budgets[budgets.length - 1] ?? '');
  return {
    ...base,
    metrics: toMetrics(metricsFromTrajectories(t)),
    open: null,
    transitions: transitions(m),
    wins: pairwiseWins(m),
    classes,
    heatmap: heatmapOf(m, t),
    iso: isoComputeGroups(m).groups.map((g) => ({ ...g, pairs: g.pairs.map((p) => ({ ...p })) })),
    cascadeBudgets: budgets,
    cascade: c.cascade,
    cascadeNote: c.note,
  };
}

/**
 * An open-ended grid's figures (docs/metrics.md §4): the engine's means, oracle gap, flows and
 * regression rate (openMetrics) with the continuous trajectories' terminal regressions, classes,
 * score distribution and step patterns, all over the same complete items.
 */
export function openOverview(m: ResponseMatrix): { open: OverviewOpen; classes: Record<string, number> } {
  const om = openMetrics(m);
  const t = continuousTrajectories(m, { eps: om.eps });
  const C = m.configs.length;
  const cols = t.plan.cols;
  const bins = om.configs.map(() => new Array<number>(SCORE_BINS).fill(0));
  const byPattern = new Map<string, { pattern: string; n: number; cls: string | null }>();
  for (const x of t.rows) {
    if (!x.complete) continue;
    for (let j = 0; j < cols.length; j++) bins[j]![scoreBin(m.score[x.row * C + cols[j]!]!)]!++;
    const g = byPattern.get(x.pattern);
    if (g) g.n++;
    else byPattern.set(x.pattern, { pattern: x.pattern, n: 1, cls: x.trajectoryClass });
  }
  const classes: Record<string, number> = {};
  for (const [k, v] of Object.entries(t.tallies.classes)) if (v > 0) classes[k] = v;
  const N = t.tallies.complete;
  return {
    classes,
    open: {
      n: om.n,
      nExcluded: om.nExcluded,
      configs: om.configs,
      eps: om.eps,
      mean: om.mean,
      bestFixed: om.bestFixed,
      oracleMean: om.oracleMean,
      oracleGapPts: om.oracleGapPts,
      regressionRate: om.regressionRate,
      terminalConfig: t.terminalConfig,
      terminalRegressionRate: N > 0 ? t.tallies.terminalRegressions / N : 0,
      counts: { regressed: t.tallies.regressed, terminalRegressions: t.tallies.terminalRegressions },
      transitions: om.transitions.map((x) => ({ ...x })),
      distribution: om.configs.map((config, j) => ({ config, bins: bins[j]! })),
      patterns: [...byPattern.values()].sort((a, b) => b.n - a.n || compareCodePoints(a.pattern, b.pattern)).slice(0, HEATMAP_PATTERN_ROWS),
    },
  };
}

/** markItems for an open-ended grid: its complete items behind a mark (the definitions of openOverview). */
function openMarkItems(m: ResponseMatrix, mark: OverviewMark): string[] {
  const t = continuousTrajectories(m);
  const C = m.configs.length;
  const pos = (k: string) => {
    const i = t.plan.keys.indexOf(k);
    if (i < 0) throw new Error(`${m.model} / ${m.split} has no config "${k}"`);
    return i;
  };
  let keep: (x: ContinuousTrajectory) => boolean;
  switch (mark.kind) {
    case 'flag':
      if (mark.flag === 'textOverwritten') throw new Error('text overwrite is a multiple-choice measure');
      keep = mark.flag === 'terminalRegression' ? (x) => x.terminalRegression : (x) => x.regressed;
      break;
    case 'pattern':
      keep = (x) => x.pattern === mark.pattern;
      break;
    case 'otherPatterns': {
      const shown = new Set(mark.shown);
      keep = (x) => !shown.has(x.pattern);
      break;
    }
    case 'scoreBin': {
      const col = t.plan.cols[pos(mark.config)]!;
      keep = (x) => scoreBin(m.score[x.row * C + col]!) === mark.bin;
      break;
    }
    default:
      throw new Error(`${mark.kind} is a multiple-choice mark; ${m.model} / ${m.split} is open-ended`);
  }
  return t.rows.filter((x) => x.complete && keep(x)).map((x) => x.sampleId);
}

/**
 * The complete items of a grid behind one overview mark, in matrix row order; the same
 * definitions as the counts the overview shows (docs/metrics.md §2–4). Throws on a config the
 * grid does not have, or a mark its kind has no figure for.
 */
export function markItems(m: ResponseMatrix, mark: GridMark): string[] {
  if (m.kind === 'open') return openMarkItems(m, mark);
  if (mark.kind === 'scoreBin') throw new Error(`a score bin is an open-ended mark; ${m.model} / ${m.split} is multiple choice`);
  const t = trajectoryColumns(m);
  const keys = t.plan.keys;
  const pos = (k: string) => {
    const i = keys.indexOf(k);
    if (i < 0) throw new Error(`${m.model} / ${m.split} has no config "${k}"`);
    return i;
  };
  const G = keys.length;
  const y = new Int8Array(G);
  let keep: (r: number) => boolean;
  switch (mark.kind) {
    case 'correct': {
      const i = pos(mark.config);
      keep = () => y[i] === 1;
      break;
    }
    case 'wins': {
      const a = pos(mark.a);
      const b = pos(mark.b);
      keep = () => y[a] === 1 && y[b] === 0;
      break;
    }
    case 'headroom': {
      const best = metricsFromTrajectories(t).bestFixed;
      const i = best === null ? -1 : pos(best);
      keep = () => i >= 0 && y[i] === 0 && y.includes(1);
      break;
    }
    case 'flag': {
      const f = { visuallyConfused: t.visuallyConfused, textOverwritten: t.textOverwritten, terminalRegression: t.terminalRegression }[mark.flag];
      keep = (r) => f[r] === 1;
      break;
    }
    case 'pattern':
    case 'otherPatterns': {
      const listed = new Set(mark.kind === 'pattern' ? [mark.pattern] : mark.shown);
      const inList = mark.kind === 'pattern';
      keep = () => listed.has(Array.from(y, (v) => (v === 1 ? '1' : '0')).join('')) === inList;
      break;
    }
  }
  const out: string[] = [];
  for (let r = 0; r < t.complete.length; r++) {
    if (t.complete[r] !== 1) continue;
    loadRow(m, t.plan, r, y);
    if (keep(r)) out.push(m.itemIds[r]!);
  }
  return out;
}

function matchedGridSetting(project: Project): string[] | null {
  const v = project.getSetting<unknown>('matchedGrid');
  if (Array.isArray(v) && v.length > 0 && v.every((x): x is string => typeof x === 'string')) return v;
  if (typeof v === 'string' && v.trim() !== '')
    return v
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
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

/** The shape of `Overview` the kept copy has: raise it whenever that schema changes. */
const OVERVIEW_FORMAT = 4;
interface KeptOverview {
  format: number;
  overview: Overview;
}

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
  // This module's own cache, stamped with the shape it was written in: a copy kept by another
  // version of the app is computed again. (Parsing it with the contract's schema instead costs
  // more than the read itself in a fresh process: 40-130 ms measured.)
  const kept = row && row.inputs === inputs && row.json !== null ? (JSON.parse(row.json) as Partial<KeptOverview>) : null;
  if (kept?.format === OVERVIEW_FORMAT && kept.overview) value = kept.overview;
  else {
    value = computeOverview(project);
    if (!project.readOnly) {
      try {
        stored.write(inputs, { format: OVERVIEW_FORMAT, overview: value } satisfies KeptOverview);
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
  const grids = project.listGrids();
  const matrices = project.loadMatrices(grids);
  const main = project.mainProtocol();
  // Only the MCQA grids with another protocol need every config's matrix (docs/metrics.md §6).
  const several = grids.filter((g) => g.kind === 'mcqa' && g.protocols.length > 1);
  const all = new Map(project.loadMatrices(several, { allProtocols: true }).map((m) => [`${m.model}\u0000${m.split}`, m] as const));
  const reportOf = (m: ResponseMatrix) => {
    const a = all.get(`${m.model}\u0000${m.split}`);
    return a ? compareProtocols(a, main.name) : null;
  };
  const available = [...new Set(project.listGrids({ allProtocols: true }).flatMap((g) => g.protocols))].sort(compareCodePoints);
  return {
    mainProtocol: { name: main.name, source: main.source, available },
    grids: matrices.map((m) => gridOverview(m, reportOf(m))),
    matchedGrid: matchedGridTable(project, matrices),
  };
}

/**
 * Per-project cache of what the queue and the item view derive from the response matrices:
 * trajectories, flags and harmed/rescued transitions per (model, split, item) — for an
 * open-ended grid their continuous twins (docs/metrics.md §4: regressed/improved by more than ε). Computed once
 * per grid with the engine (typed arrays), invalidated when an import changes the project.
 */
import type { Project } from '../store/project';
import type { ConfigSpec } from '../../shared/domain/types';
import { trajectories, type Trajectory } from '../../shared/engine/trajectories';
import { continuousTrajectories } from '../../shared/engine/continuous';
import { planGrid } from '../../shared/engine/grid-plan';
import { itemTransitions, transitionPairs } from '../../shared/engine/mcqa';

export interface ItemAudit {
  pattern: string;
  trajectoryClass: string | null;
  visuallyConfused: boolean;
  textOverwritten: boolean;
  terminalRegression: boolean;
  bestConfig: string | null;
  terminalConfig: string | null;
  harmed: string[];
  rescued: string[];
}

export interface GridAudit {
  model: string;
  split: string;
  kind: 'mcqa' | 'open';
  configs: ConfigSpec[];
  items: Map<string, ItemAudit>;
}

const key = (model: string, split: string) => `${model}\u0000${split}`;

function matchedGridOf(project: Project): string[] | null {
  const v = project.getSetting<unknown>('matchedGrid');
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  if (typeof v === 'string' && v.trim() !== '') return v.split(',').map((s) => s.trim());
  return null;
}

export function computeGridAudit(project: Project, model: string, split: string): GridAudit {
  const m = project.loadMatrix(model, split);
  const items = new Map<string, ItemAudit>();
  if (m.kind === 'open' && m.configs.length > 0) {
    // docs/metrics.md §4: the continuous twins of the MCQA fields (queue-data.ts does the same).
    const t = continuousTrajectories(m);
    for (const x of t.rows) {
      items.set(x.sampleId, {
        pattern: x.pattern,
        trajectoryClass: x.trajectoryClass,
        visuallyConfused: x.regressed,
        textOverwritten: false,
        terminalRegression: x.terminalRegression,
        bestConfig: x.bestConfig,
        terminalConfig: t.terminalConfig,
        harmed: x.regressedOn,
        rescued: x.improvedOn,
      });
    }
    return { model, split, kind: m.kind, configs: t.plan.specs, items };
  }
  if (m.kind !== 'mcqa' || m.configs.length === 0) {
    for (const id of m.itemIds) {
      items.set(id, {
        pattern: '',
        trajectoryClass: null,
        visuallyConfused: false,
        textOverwritten: false,
        terminalRegression: false,
        bestConfig: null,
        terminalConfig: null,
        harmed: [],
        rescued: [],
      });
    }
    return { model, split, kind: m.kind, configs: m.configs, items };
  }
  const plan = planGrid(m);
  const pairs = transitionPairs(plan);
  const C = m.configs.length;
  const terminal = plan.terminalPos >= 0 ? (plan.keys[plan.terminalPos] ?? null) : null;
  const trs: Trajectory[] = trajectories(m, { matchedGrid: matchedGridOf(project) });
  const y = new Int8Array(plan.cols.length);
  for (const t of trs) {
    for (let j = 0; j < y.length; j++) y[j] = m.correct[t.row * C + plan.cols[j]!]!;
    const { harmed, rescued } = itemTransitions(plan, pairs, y);
    items.set(t.sampleId, {
      pattern: t.pattern,
      trajectoryClass: t.trajectoryClass,
      visuallyConfused: t.isVisuallyConfused,
      textOverwritten: t.isTextOverwritten,
      terminalRegression: t.terminalRegression,
      bestConfig: t.bestConfig,
      terminalConfig: terminal,
      harmed,
      rescued,
    });
  }
  return { model, split, kind: m.kind, configs: plan.specs, items };
}

export interface AuditIndex {
  grid(model: string, split: string): GridAudit;
  all(): GridAudit[];
  invalidate(): void;
}

export function createAuditIndex(project: Project): AuditIndex {
  const cache = new Map<string, GridAudit>();
  // An import by another process (the CLI, a worker) changes the project's inputs version.
  let inputs = project.inputsVersion();
  const grid = (model: string, split: string): GridAudit => {
    const now = project.inputsVersion();
    if (now !== inputs) {
      inputs = now;
      cache.clear();
    }
    const k = key(model, split);
    let g = cache.get(k);
    if (!g) {
      g = computeGridAudit(project, model, split);
      cache.set(k, g);
    }
    return g;
  };
  return {
    grid,
    all: () => project.listGrids().map((g) => grid(g.model, g.split)),
    invalidate: () => cache.clear(),
  };
}

/**
 * The items behind an overview mark, from the grid's complete rows (patterns in config order).
 * Pure, so the renderer's click-throughs and the tests share one definition.
 */
import type { OverviewGrid, OverviewTransition } from './overview';

const ids = (g: OverviewGrid, keep: (pattern: string, r: OverviewGrid['rows'][number]) => boolean): string[] =>
  g.rows.filter((r) => keep(r.pattern, r)).map((r) => r.sampleId);

/** wins[a][b]: correct under a, wrong under b. */
export function winsItems(g: OverviewGrid, a: string, b: string): string[] {
  const i = g.wins.configs.indexOf(a);
  const j = g.wins.configs.indexOf(b);
  return i < 0 || j < 0 ? [] : ids(g, (p) => p[i] === '1' && p[j] === '0');
}

export function correctAtItems(g: OverviewGrid, config: string): string[] {
  const i = g.wins.configs.indexOf(config);
  return i < 0 ? [] : ids(g, (p) => p[i] === '1');
}

/** Oracle headroom: correct under some config, wrong under the best fixed one. */
export function headroomItems(g: OverviewGrid): string[] {
  const best = g.metrics?.bestFixed;
  const i = best ? g.wins.configs.indexOf(best) : -1;
  return i < 0 ? [] : ids(g, (p) => p.includes('1') && p[i] === '0');
}

export function transitionItems(g: OverviewGrid, t: Pick<OverviewTransition, 'from' | 'to'>, kind: 'harmed' | 'rescued'): string[] {
  return kind === 'harmed' ? winsItems(g, t.from, t.to) : winsItems(g, t.to, t.from);
}

/**
 * The budget-ladder transitions (drawn between adjacent budgets): §2 lists them first, then
 * `text → c` extras, which all start where the first ladder pair starts (text only).
 */
export function ladderTransitions(ts: readonly OverviewTransition[]): OverviewTransition[] {
  const first = ts[0];
  return ts.filter((t, i) => i === 0 || t.from !== first?.from);
}

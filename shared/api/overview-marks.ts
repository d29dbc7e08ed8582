/**
 * What an overview mark stands for, shared by the renderer's click-throughs and the tests: the
 * label a mark's items get in the queue and the counts drawn from the grid's figures. The items
 * themselves are the backend's answer to overview:items (electron/derived/overview.ts
 * markItems): the overview's answer does not carry them (docs/architecture.md "The overview at
 * lab scale").
 */
import { SCORE_BINS, type OverviewGrid, type OverviewMark, type OverviewTransition } from './overview';
import { protocolLabel } from '../engine/protocols';

const FLAG_LABELS = { visuallyConfused: 'visually confused', textOverwritten: 'text overwritten', terminalRegression: 'terminal regression' } as const;

/** How the queue names a mark's items (the unsaved view's label). */
export function markLabel(mark: OverviewMark): string {
  switch (mark.kind) {
    case 'correct':
      return `correct at ${mark.config}`;
    case 'wins':
      return `correct at ${mark.a}, wrong at ${mark.b}`;
    case 'headroom':
      return 'oracle headroom';
    case 'flag':
      return FLAG_LABELS[mark.flag];
    case 'pattern':
      return `pattern ${mark.pattern}`;
    case 'otherPatterns':
      return 'other patterns';
    case 'scoreBin':
      return `score ${binRange(mark.bin)} at ${mark.config}`;
    case 'protocolMoved': {
      const what = PROTOCOL_SET_LABELS[mark.set];
      const p = protocolLabel(mark.protocol);
      if (mark.side === 'onlyMain') return `${what} in the main grid only, not under ${p}`;
      if (mark.side === 'onlyVariant') return `${what} under ${p} only, not in the main grid`;
      return `${what}: membership changes under ${p}`;
    }
    case 'recovered':
      return mark.protocol === null ? 'terminal regressions recovered by another protocol' : `terminal regressions recovered by ${protocolLabel(mark.protocol)}`;
  }
}

const PROTOCOL_SET_LABELS = { confused: 'visually confused', terminalRegression: 'terminal regression', textOverwritten: 'text overwritten' } as const;

/** A score bin as the overview names it: `0.3–0.4`, the last one `0.9–1`. */
export function binRange(bin: number): string {
  const lo = bin / SCORE_BINS;
  const hi = (bin + 1) / SCORE_BINS;
  return `${lo.toFixed(1)}–${bin === SCORE_BINS - 1 ? '1' : hi.toFixed(1)}`;
}

/** Oracle headroom items (correct under some config, wrong under the best fixed one): oracle − correct at best. */
export function headroomCount(g: OverviewGrid): number {
  const m = g.metrics;
  if (!m || m.bestFixed === null) return 0;
  return m.counts.oracle - (m.correctCounts[m.bestFixed] ?? 0);
}

/**
 * The budget-ladder transitions (drawn between adjacent budgets): §2 lists them first, then
 * `text → c` extras, which all start where the first ladder pair starts (text only).
 */
export function ladderTransitions(ts: readonly OverviewTransition[]): OverviewTransition[] {
  const first = ts[0];
  return ts.filter((t, i) => i === 0 || t.from !== first?.from);
}

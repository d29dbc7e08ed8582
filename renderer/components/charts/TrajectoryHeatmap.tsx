/**
 * Items × configs of one grid (1 correct, 0 wrong). A small grid can show one row per item (a
 * click opens the item); every grid can show one row per correctness pattern with its item
 * count and a last row for the rarer patterns (a click opens the queue on those items), so
 * the chart's size follows the configs, not the items (docs/architecture.md "The overview at
 * lab scale"). Drawn on canvas by echarts' heatmap.
 */
import { useCallback, useMemo, useState } from 'react';
import type { OverviewGrid, OverviewPatternRow, OverviewRow } from '../../../shared/api/overview';
import { TRAJECTORY_CLASSES } from '../../../shared/api/contract';
import { EChart, allLabels, html, type ChartOption } from './EChart';
import type { ItemRef } from '../../../shared/api/contract';
import type { OpenQueue } from './FlowsChart';
import type { OpenMark } from './open-mark';

type Mode = 'item' | 'pattern';
type SortBy = 'class' | 'sampleId' | 'pattern' | 'count';
const SORTS: Record<Mode, [SortBy, string][]> = {
  item: [
    ['class', 'by trajectory class'],
    ['pattern', 'by pattern'],
    ['sampleId', 'by sample id'],
  ],
  pattern: [
    ['class', 'by trajectory class'],
    ['count', 'by number of items'],
    ['pattern', 'by pattern'],
  ],
};
const classRank = new Map<string, number>(TRAJECTORY_CLASSES.map((c, i) => [c, i]));
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byClass = (a: { cls: string | null }, b: { cls: string | null }) => (classRank.get(a.cls ?? '') ?? 9) - (classRank.get(b.cls ?? '') ?? 9);

/** Opens one item, with the queue set to the item's grid so j/k walk on from there. */
export type OpenItem = (item: ItemRef, queue: Parameters<OpenQueue>[0], label: string) => void;

/** A cell's tooltip (HTML): every imported string escaped, so a hostile sample id shows as text. */
export function heatmapTip(row: { sampleId: string; cls: string | null }, config: string | undefined, correct: boolean): string {
  return `${html(row.sampleId)} (${html(row.cls ?? '—')})<br/>${html(config)}: ${correct ? 'correct' : 'wrong'}<br/><small>click to open the item</small>`;
}

/** A pattern row's cell tooltip (HTML, escaped likewise). */
export function patternTip(row: { pattern: string; n: number; cls: string | null }, config: string | undefined, correct: boolean): string {
  return `${row.n} item${row.n === 1 ? '' : 's'} with pattern ${html(row.pattern)} (${html(row.cls ?? '—')})<br/>${html(config)}: ${correct ? 'correct' : 'wrong'}<br/><small>click to open these items</small>`;
}

/** One drawn row: an item, a pattern, or the rarer patterns together (`share` correct per config). */
type Drawn =
  | { kind: 'item'; key: string; label: string; row: OverviewRow; share: number[] }
  | { kind: 'pattern'; key: string; label: string; row: OverviewPatternRow; share: number[] }
  | { kind: 'rest'; key: string; label: string; n: number; patterns: number; correct: number[]; share: number[] };

const bits = (pattern: string) => [...pattern].map((ch) => (ch === '1' ? 1 : 0));

export function TrajectoryHeatmap({ grid, onItem, onMark }: { grid: OverviewGrid; onItem: OpenItem; onMark: OpenMark }) {
  const { items, patterns, rest } = grid.heatmap;
  const [mode, setMode] = useState<Mode>(items ? 'item' : 'pattern');
  const [sortBy, setSortBy] = useState<SortBy>('class');
  const sort = SORTS[mode].some(([k]) => k === sortBy) ? sortBy : 'class';
  const configs = grid.wins.configs;
  const label = `Trajectory heatmap: ${grid.model} / ${grid.split}`;
  const rows = useMemo<Drawn[]>(() => {
    if (mode === 'item' && items) {
      const r = [...items];
      if (sort === 'class') r.sort((a, b) => byClass(a, b) || cmp(a.pattern, b.pattern) || cmp(a.sampleId, b.sampleId));
      else if (sort === 'pattern') r.sort((a, b) => cmp(a.pattern, b.pattern) || cmp(a.sampleId, b.sampleId));
      else r.sort((a, b) => cmp(a.sampleId, b.sampleId));
      return r.map((row) => ({ kind: 'item', key: `row:${row.sampleId}`, label: row.sampleId, row, share: bits(row.pattern) }));
    }
    const p = [...patterns];
    if (sort === 'class') p.sort((a, b) => byClass(a, b) || b.n - a.n || cmp(a.pattern, b.pattern));
    else if (sort === 'pattern') p.sort((a, b) => cmp(a.pattern, b.pattern));
    else p.sort((a, b) => b.n - a.n || cmp(a.pattern, b.pattern));
    const out: Drawn[] = p.map((row) => ({ kind: 'pattern', key: `pattern:${row.pattern}`, label: `${row.n} · ${row.cls ?? '—'}`, row, share: bits(row.pattern) }));
    if (rest) {
      out.push({
        kind: 'rest',
        key: 'pattern:rest',
        label: `${rest.n} · ${rest.patterns} other patterns`,
        n: rest.n,
        patterns: rest.patterns,
        correct: rest.correct,
        share: rest.correct.map((c) => c / rest.n),
      });
    }
    return out;
  }, [mode, items, patterns, rest, sort]);
  const byItem = mode === 'item' && items !== null;
  const option = useMemo<ChartOption>(() => {
    const data: number[][] = [];
    rows.forEach((r, y) => {
      for (let x = 0; x < configs.length; x++) data.push([x, y, r.share[x] ?? 0]);
    });
    const showLabels = rows.length <= 60;
    return {
      grid: { left: showLabels ? 190 : 20, right: 20, top: 10, bottom: configs.length > 8 ? 70 : 40 },
      tooltip: {
        formatter: (p: unknown) => {
          const v = (p as { value: number[] }).value;
          const r = rows[v[1]!];
          const config = configs[v[0]!];
          if (!r) return '';
          if (r.kind === 'item') return heatmapTip(r.row, config, v[2] === 1);
          if (r.kind === 'pattern') return patternTip(r.row, config, v[2] === 1);
          const c = r.correct[v[0]!] ?? 0;
          return `${r.n} items in ${r.patterns} other patterns<br/>${html(config)}: ${((100 * c) / r.n).toFixed(1)}% correct (${c} / ${r.n})<br/><small>click to open these items</small>`;
        },
      },
      xAxis: { type: 'category', data: configs, axisLabel: allLabels(configs.length, 560) },
      // Categories are the rows' unique keys; two patterns may share a label (same count and class).
      yAxis: {
        type: 'category',
        data: rows.map((r) => r.key),
        inverse: true,
        axisLabel: { show: showLabels, fontFamily: 'ui-monospace, monospace', formatter: (_: string, i: number) => rows[i]?.label ?? '' },
      },
      // One scale for every row: an item or pattern is 0 or 1, the rarer patterns' row its share correct.
      visualMap: { type: 'continuous', min: 0, max: 1, show: false, inRange: { color: ['#e7a19b', '#7cc48b'] } },
      series: [{ type: 'heatmap', data, progressive: 5000, emphasis: { disabled: true } }],
    };
  }, [rows, configs]);
  // Each row's pixel centre (on its first config's cell), for data-marks: where a click opens that
  // row. Item rows are at most HEATMAP_ITEM_ROWS, pattern rows HEATMAP_PATTERN_ROWS + 1.
  const marks = useCallback(
    (chart: import('echarts').ECharts) => {
      const out: Record<string, [number, number] | null> = {};
      rows.forEach((r, y) => {
        out[r.key] = chart.convertToPixel({ seriesIndex: 0 }, [0, y]) as [number, number];
      });
      return out;
    },
    [rows],
  );
  const perRow = byItem ? 14 : 18;
  const height = Math.min(byItem ? 600 : 820, Math.max(200, rows.length * perRow + 60)) + (configs.length > 8 ? 30 : 0);
  return (
    <div>
      <div className="row">
        {items && (
          <label>
            Heatmap rows
            <select aria-label={`Rows of ${label}`} value={mode} onChange={(e) => setMode(e.target.value as Mode)}>
              <option value="item">one per item</option>
              <option value="pattern">one per pattern</option>
            </select>
          </label>
        )}
        <label>
          Sort heatmap rows
          <select aria-label={`Sort ${label}`} value={sort} onChange={(e) => setSortBy(e.target.value as SortBy)}>
            {SORTS[mode].map(([k, text]) => (
              <option key={k} value={k}>
                {text}
              </option>
            ))}
          </select>
        </label>
      </div>
      {!byItem && (
        <p className="note" data-heatmap-summary>
          {grid.metrics?.n ?? 0} items in {patterns.length + (rest?.patterns ?? 0)} patterns
          {rest ? `: the ${patterns.length} most frequent, then ${rest.n} items in ${rest.patterns} rarer patterns on the last row (its colour: the share correct)` : ''}.
        </p>
      )}
      <EChart
        label={label}
        testId={`heatmap-${grid.model}-${grid.split}`}
        option={option}
        height={height}
        marks={marks}
        onClick={(p) => {
          const v = (p.data as number[] | undefined) ?? [];
          const r = rows[v[1] ?? -1];
          if (!r) return;
          if (r.kind === 'item')
            onItem({ model: grid.model, split: grid.split, sampleId: r.row.sampleId }, { model: grid.model, split: grid.split }, `${grid.model} / ${grid.split}`);
          else if (r.kind === 'pattern') onMark({ kind: 'pattern', pattern: r.row.pattern });
          else onMark({ kind: 'otherPatterns', shown: patterns.map((x) => x.pattern) });
        }}
        csv={() =>
          byItem
            ? [
                ['sample_id', 'class', ...configs],
                ...rows.flatMap((r) => (r.kind === 'item' ? [[r.row.sampleId, r.row.cls, ...[...r.row.pattern].map((ch) => (ch === '.' ? null : Number(ch)))]] : [])),
              ]
            : [
                ['pattern', 'items', 'class', ...configs],
                ...rows.map((r) =>
                  r.kind === 'rest' ? [`other (${r.patterns} patterns)`, r.n, null, ...r.share] : r.kind === 'pattern' ? [r.row.pattern, r.row.n, r.row.cls, ...r.share] : [],
                ),
              ]
        }
      />
    </div>
  );
}

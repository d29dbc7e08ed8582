/**
 * Items × configs of one grid (1 correct, 0 wrong), sortable by trajectory class. Drawn on
 * canvas by echarts' heatmap so 30k items stay responsive; a click opens that item's row.
 */
import { useCallback, useMemo, useState } from 'react';
import type { OverviewGrid } from '../../../shared/api/overview';
import { TRAJECTORY_CLASSES } from '../../../shared/api/contract';
import { EChart, allLabels, html, type ChartOption } from './EChart';
import type { ItemRef } from '../../../shared/api/contract';
import type { OpenQueue } from './FlowsChart';

type SortBy = 'class' | 'sampleId' | 'pattern';
const MARKED_ROWS = 200;
const classRank = new Map<string, number>(TRAJECTORY_CLASSES.map((c, i) => [c, i]));

/** Opens one item, with the queue set to the item's grid so j/k walk on from there. */
export type OpenItem = (item: ItemRef, queue: Parameters<OpenQueue>[0], label: string) => void;

/** A cell's tooltip (HTML): every imported string escaped, so a hostile sample id shows as text. */
export function heatmapTip(row: { sampleId: string; cls: string | null }, config: string | undefined, correct: boolean): string {
  return `${html(row.sampleId)} (${html(row.cls ?? '—')})<br/>${html(config)}: ${correct ? 'correct' : 'wrong'}<br/><small>click to open the item</small>`;
}

export function TrajectoryHeatmap({ grid, onItem }: { grid: OverviewGrid; onItem: OpenItem }) {
  const [sortBy, setSortBy] = useState<SortBy>('class');
  const configs = grid.wins.configs;
  const label = `Trajectory heatmap: ${grid.model} / ${grid.split}`;
  const rows = useMemo(() => {
    const r = [...grid.rows];
    const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    if (sortBy === 'class') r.sort((a, b) => (classRank.get(a.cls ?? '') ?? 9) - (classRank.get(b.cls ?? '') ?? 9) || cmp(a.pattern, b.pattern) || cmp(a.sampleId, b.sampleId));
    else if (sortBy === 'pattern') r.sort((a, b) => cmp(a.pattern, b.pattern) || cmp(a.sampleId, b.sampleId));
    else r.sort((a, b) => cmp(a.sampleId, b.sampleId));
    return r;
  }, [grid.rows, sortBy]);
  const option = useMemo<ChartOption>(() => {
    const data: number[][] = [];
    rows.forEach((r, y) => {
      for (let x = 0; x < configs.length; x++) data.push([x, y, r.pattern[x] === '1' ? 1 : 0]);
    });
    return {
      grid: { left: rows.length > 60 ? 20 : 150, right: 20, top: 10, bottom: configs.length > 8 ? 70 : 40 },
      tooltip: {
        formatter: (p: unknown) => {
          const v = (p as { value: number[] }).value;
          const r = rows[v[1]!];
          return r ? heatmapTip(r, configs[v[0]!], v[2] === 1) : '';
        },
      },
      xAxis: { type: 'category', data: configs, axisLabel: allLabels(configs.length, 560) },
      yAxis: { type: 'category', data: rows.map((r) => r.sampleId), inverse: true, axisLabel: { show: rows.length <= 60 } },
      visualMap: { type: 'piecewise', show: false, pieces: [{ value: 0, color: '#e7a19b' }, { value: 1, color: '#7cc48b' }] },
      series: [{ type: 'heatmap', data, progressive: 5000, emphasis: { disabled: true } }],
    };
  }, [rows, configs]);
  // Each row's pixel centre (on its first config's cell), for data-marks: where a click opens that
  // row's item. The first MARKED_ROWS rows only: a 30k-item grid would make a megabyte attribute.
  const marks = useCallback(
    (chart: import('echarts').ECharts) => {
      const out: Record<string, [number, number] | null> = {};
      rows.slice(0, MARKED_ROWS).forEach((r, y) => {
        out[`row:${r.sampleId}`] = chart.convertToPixel({ seriesIndex: 0 }, [0, y]) as [number, number];
      });
      return out;
    },
    [rows],
  );
  const height = Math.min(600, Math.max(200, rows.length * 14 + 60)) + (configs.length > 8 ? 30 : 0);
  return (
    <div>
      <label>
        Sort heatmap rows
        <select aria-label={`Sort ${label}`} value={sortBy} onChange={(e) => setSortBy(e.target.value as SortBy)}>
          <option value="class">by trajectory class</option>
          <option value="pattern">by pattern</option>
          <option value="sampleId">by sample id</option>
        </select>
      </label>
      <EChart
        label={label}
        testId={`heatmap-${grid.model}-${grid.split}`}
        option={option}
        height={height}
        marks={marks}
        onClick={(p) => {
          const v = (p.data as number[] | undefined) ?? [];
          const r = rows[v[1] ?? -1];
          if (r) onItem({ model: grid.model, split: grid.split, sampleId: r.sampleId }, { model: grid.model, split: grid.split }, `${grid.model} / ${grid.split}`);
        }}
        csv={() => [['sample_id', 'class', ...configs], ...rows.map((r) => [r.sampleId, r.cls, ...[...r.pattern].map((ch) => (ch === '.' ? null : Number(ch)))])]}
      />
    </div>
  );
}

/** Trajectory-class breakdown of one grid (docs/metrics.md §3, §4 for open-ended grids): one bar per class. */
import { useMemo } from 'react';
import { TRAJECTORY_CLASSES } from '../../../shared/api/contract';
import type { OverviewGrid } from '../../../shared/api/overview';
import { EChart, type ChartOption } from './EChart';
import type { OpenQueue } from './FlowsChart';

export function ClassChart({ grid, onQueue, classes = TRAJECTORY_CLASSES }: { grid: OverviewGrid; onQueue: OpenQueue; classes?: readonly string[] }) {
  const label = `Trajectory classes: ${grid.model} / ${grid.split}`;
  const counts = classes.map((c) => grid.classes[c] ?? 0);
  const option = useMemo<ChartOption>(
    () => ({
      grid: { left: 150, right: 30, top: 10, bottom: 30 },
      tooltip: {},
      xAxis: { type: 'value', name: 'items' },
      yAxis: { type: 'category', data: [...classes], inverse: true },
      series: [{ type: 'bar', data: counts, label: { show: true, position: 'right' }, itemStyle: { color: '#4d7cc4' } }],
    }),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- counts is rebuilt each render; its values (joined) are the dependency
    [counts.join(','), classes],
  );
  return (
    <EChart
      label={label}
      testId={`classes-${grid.model}-${grid.split}`}
      option={option}
      height={200}
      onClick={(p) => {
        const cls = classes[p.dataIndex];
        if (cls) onQueue({ model: grid.model, split: grid.split, trajectoryClass: cls }, `${cls} (${grid.model} / ${grid.split})`);
      }}
      csv={() => [['class', 'items'], ...classes.map((c, i) => [c, counts[i] ?? 0])]}
    />
  );
}

/** The flip matrix wins[a][b] (correct under a, wrong under b) of one grid as a heatmap. */
import { useMemo } from 'react';
import type { OverviewGrid } from '../../../shared/api/overview';
import { EChart, allLabels, html, type ChartOption } from './EChart';
import type { OpenMark } from './open-mark';

export function WinsChart({ grid, onMark }: { grid: OverviewGrid; onMark: OpenMark }) {
  const { configs, wins } = grid.wins;
  const label = `Flip matrix: ${grid.model} / ${grid.split}`;
  const max = Math.max(1, ...wins.flat());
  const option = useMemo<ChartOption>(
    () => ({
      grid: { left: 110, right: 20, top: 10, bottom: configs.length > 6 ? 80 : 50 },
      tooltip: {
        formatter: (p: unknown) => {
          const v = (p as { value: number[] }).value;
          return `${html(configs[v[1]!])} right, ${html(configs[v[0]!])} wrong: ${v[2]} items`;
        },
      },
      xAxis: {
        type: 'category',
        data: configs,
        name: 'wrong under (column)',
        nameLocation: 'middle',
        nameGap: configs.length > 6 ? 60 : 30,
        axisLabel: allLabels(configs.length, 420),
      },
      yAxis: {
        type: 'category',
        data: configs,
        name: 'correct under (row)',
        nameLocation: 'middle',
        nameGap: 90,
        nameRotate: 90,
        inverse: true,
        axisLabel: { interval: 0, fontFamily: 'ui-monospace, monospace' },
      },
      visualMap: { min: 0, max, calculable: false, show: false, inRange: { color: ['#f4f6fb', '#7b3fa0'] } },
      series: [
        {
          type: 'heatmap',
          label: { show: true },
          data: configs.flatMap((_, a) => configs.map((__, b) => [b, a, a === b ? 0 : (wins[a]?.[b] ?? 0)])),
        },
      ],
    }),
    [configs, wins, max],
  );
  return (
    <EChart
      label={label}
      testId={`wins-${grid.model}-${grid.split}`}
      option={option}
      height={Math.max(280, 60 + configs.length * 22 + (configs.length > 6 ? 30 : 0))}
      onClick={(p) => {
        const v = (p.data as number[] | undefined) ?? [];
        const a = configs[v[1] ?? -1];
        const b = configs[v[0] ?? -1];
        if (a && b && a !== b) onMark({ kind: 'wins', a, b });
      }}
      csv={() => [['correct_under_a \\ wrong_under_b', ...configs], ...configs.map((a, i) => [a, ...(wins[i] ?? [])])]}
    />
  );
}

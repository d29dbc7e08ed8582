/**
 * The paper's central figure: accuracy per config (line, left axis) drawn with the rescued
 * (up, green) and harmed (down, red) items of each budget-ladder transition (bars between the
 * two budgets, right axis), so a small net change made of two large opposing flows is visible
 * at a glance. Hover gives the McNemar p; clicking a bar opens exactly its items in the queue.
 */
import { useCallback, useMemo } from 'react';
import type { OverviewGrid } from '../../../shared/api/overview';
import { ladderTransitions } from '../../../shared/api/overview-marks';
import type { QueueFilter } from '../../../shared/api/queue-filter';
import { EChart, html, type ChartOption } from './EChart';
import type { OpenMark } from './open-mark';

export type OpenQueue = (patch: Partial<QueueFilter>, label: string) => void;

export const pval = (p: number) => (p < 1e-4 ? p.toExponential(1) : p.toFixed(4));
export const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`;

/** Opens the queue on exactly the rescued or harmed items of one transition. */
export function openFlow(grid: OverviewGrid, onQueue: OpenQueue, t: { from: string; to: string }, kind: 'harmed' | 'rescued') {
  onQueue({ model: grid.model, split: grid.split, transition: `${t.from}>${t.to}`, transitionKind: kind }, `${kind} ${t.from} → ${t.to} (${grid.model} / ${grid.split})`);
}

export function FlowsChart({ grid, onQueue, onMark, height = 340 }: { grid: OverviewGrid; onQueue: OpenQueue; onMark: OpenMark; height?: number }) {
  const m = grid.metrics;
  const configs = useMemo(() => m?.configs ?? [], [m]);
  const ladder = useMemo(() => ladderTransitions(grid.transitions), [grid.transitions]);
  const pos = useMemo(() => new Map(configs.map((c, i) => [c, i])), [configs]);
  const mid = useCallback((t: { from: string; to: string }) => ((pos.get(t.from) ?? 0) + (pos.get(t.to) ?? 0)) / 2, [pos]);
  // The line joins only the budget ladder (configs ordered by dominance, docs/metrics.md §1);
  // configs off it (other resolutions, samplers) are separate points: no order is implied.
  const onLadder = useMemo(() => {
    const first = ladder[0];
    return new Set(first ? [first.from, ...ladder.map((t) => t.to)] : configs.slice(0, 1));
  }, [ladder, configs]);
  const label = `Accuracy and flows: ${grid.model} / ${grid.split}`;
  const maxFlow = Math.max(1, ...ladder.flatMap((t) => [t.rescued, t.harmed]));

  const option = useMemo<ChartOption>(
    () => ({
      grid: { left: 56, right: 56, top: 44, bottom: configs.length > 8 ? 60 : 30 },
      legend: { data: ['accuracy %', ...(onLadder.size < configs.length ? ['accuracy % (off the ladder)'] : []), 'rescued', 'harmed'], top: 0, left: 'center' },
      tooltip: {
        trigger: 'item',
        formatter: (p: unknown) => {
          const q = p as { seriesName: string; dataIndex: number };
          if (q.seriesName === 'accuracy %' || q.seriesName === 'accuracy % (off the ladder)') {
            const c = (p as { data: { config: string } }).data.config;
            const off = onLadder.has(c) ? '' : '<br/>not ordered against the ladder (dominance)';
            return `${html(c)}: ${(100 * (m?.accuracy[c] ?? 0)).toFixed(2)}% (${m?.correctCounts[c] ?? 0} / ${m?.n ?? 0})${off}`;
          }
          const t = ladder[q.dataIndex];
          if (!t) return '';
          return `${html(t.from)} → ${html(t.to)}<br/>rescued ${t.rescued}, harmed ${t.harmed}<br/>net ${signed(t.netPts)} pts, churn ${(100 * t.churnRate).toFixed(1)}%<br/>McNemar p = ${pval(t.mcnemarP)}`;
        },
      },
      xAxis: {
        type: 'value',
        min: -0.5,
        max: configs.length - 0.5,
        interval: 1,
        splitLine: { show: false },
        // Ticks sit between configs (min −0.5); the config names go under the points themselves.
        axisTick: { show: false },
        axisLabel: {
          customValues: configs.map((_, i) => i),
          formatter: (v: number) => configs[v] ?? '',
          fontFamily: 'ui-monospace, monospace',
          rotate: configs.length > 8 ? 35 : 0,
        },
      },
      yAxis: [
        { type: 'value', name: 'accuracy %', min: 0, max: 100 },
        { type: 'value', name: 'items', min: -maxFlow, max: maxFlow, splitLine: { show: false }, axisLabel: { formatter: (v: number) => String(Math.abs(v)) } },
      ],
      series: [
        {
          name: 'rescued',
          type: 'bar',
          yAxisIndex: 1,
          stack: 'flow',
          barWidth: 22,
          itemStyle: { color: '#2e9d4a' },
          label: { show: true, position: 'top', formatter: (p: { value: unknown }) => ((p.value as number[])[1] ? `+${(p.value as number[])[1]}` : '') },
          data: ladder.map((t) => [mid(t), t.rescued]),
        },
        {
          name: 'harmed',
          type: 'bar',
          yAxisIndex: 1,
          stack: 'flow',
          barWidth: 22,
          itemStyle: { color: '#d1453b' },
          label: { show: true, position: 'bottom', formatter: (p: { value: unknown }) => ((p.value as number[])[1] ? `−${-(p.value as number[])[1]!}` : '') },
          data: ladder.map((t) => [mid(t), -t.harmed]),
        },
        {
          name: 'accuracy %',
          type: 'line',
          yAxisIndex: 0,
          symbolSize: 9,
          lineStyle: { width: 3, color: '#2b4c9b' },
          itemStyle: { color: '#2b4c9b' },
          label: { show: true, position: 'top', formatter: (p: { value: unknown }) => ((p.value as number[])[1] ?? 0).toFixed(1) },
          data: configs.flatMap((c, i) => (onLadder.has(c) ? [{ value: [i, 100 * (m?.accuracy[c] ?? 0)], config: c }] : [])),
        },
        {
          name: 'accuracy % (off the ladder)',
          type: 'scatter',
          yAxisIndex: 0,
          symbol: 'diamond',
          symbolSize: 11,
          itemStyle: { color: '#7a8fc4' },
          label: { show: true, position: 'top', formatter: (p: { value: unknown }) => ((p.value as number[])[1] ?? 0).toFixed(1) },
          data: configs.flatMap((c, i) => (onLadder.has(c) ? [] : [{ value: [i, 100 * (m?.accuracy[c] ?? 0)], config: c }])),
        },
      ],
    }),
    [configs, ladder, m, maxFlow, mid, onLadder],
  );

  const marks = useCallback(
    (chart: import('echarts').ECharts) => {
      const out: Record<string, [number, number] | null> = {};
      for (const t of ladder) {
        const x = mid(t);
        const key = `${t.from}>${t.to}`;
        out[`harmed:${key}`] = t.harmed > 0 ? (chart.convertToPixel({ xAxisIndex: 0, yAxisIndex: 1 }, [x, -t.harmed / 2]) as [number, number]) : null;
        out[`rescued:${key}`] = t.rescued > 0 ? (chart.convertToPixel({ xAxisIndex: 0, yAxisIndex: 1 }, [x, t.rescued / 2]) as [number, number]) : null;
      }
      configs.forEach((c, i) => {
        out[`accuracy:${c}`] = chart.convertToPixel({ xAxisIndex: 0, yAxisIndex: 0 }, [i, 100 * (m?.accuracy[c] ?? 0)]) as [number, number];
      });
      return out;
    },
    [ladder, mid, configs, m],
  );

  if (!m) return null;
  return (
    <div className="flows">
      <EChart
        label={label}
        testId={`flows-${grid.model}-${grid.split}`}
        option={option}
        height={height}
        marks={marks}
        onClick={(p) => {
          const t = ladder[p.dataIndex];
          if (p.seriesName === 'harmed' && t) openFlow(grid, onQueue, t, 'harmed');
          else if (p.seriesName === 'rescued' && t) openFlow(grid, onQueue, t, 'rescued');
          else if (p.seriesName === 'accuracy %' || p.seriesName === 'accuracy % (off the ladder)') {
            const c = (p.data as { config?: string } | undefined)?.config;
            if (c) onMark({ kind: 'correct', config: c });
          }
        }}
        csv={() => [
          ['model', 'split', 'from', 'to', 'rescued', 'harmed', 'churn', 'churn_rate', 'net_pts', 'mcnemar_p'],
          ...grid.transitions.map((t) => [grid.model, grid.split, t.from, t.to, t.rescued, t.harmed, t.churn, t.churnRate, t.netPts, t.mcnemarP]),
        ]}
      />
    </div>
  );
}

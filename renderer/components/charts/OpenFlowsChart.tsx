/**
 * The flows chart of an open-ended grid (docs/metrics.md §4): the mean score per config (line)
 * with the items that improved (up, green) and regressed (down, red) by more than ε on each
 * budget-ladder transition, so a mean that rises while items drop is visible at a glance. A
 * bar opens exactly its items in the queue (the queue's rescued/harmed filter holds an open
 * grid's improved/regressed transitions); a point opens nothing (a mean has no items).
 */
import { useCallback, useMemo } from 'react';
import type { OverviewGrid, OverviewOpen, OverviewOpenTransition } from '../../../shared/api/overview';
import { EChart, html, type ChartOption } from './EChart';
import { signed, type OpenQueue } from './FlowsChart';

/** Opens the queue on the items that improved (rescued list) or regressed (harmed list) on one transition. */
export function openScoreFlow(grid: Pick<OverviewGrid, 'model' | 'split'>, onQueue: OpenQueue, t: { from: string; to: string }, kind: 'improved' | 'regressed') {
  onQueue(
    { model: grid.model, split: grid.split, transition: `${t.from}>${t.to}`, transitionKind: kind === 'regressed' ? 'harmed' : 'rescued' },
    `${kind} ${t.from} → ${t.to} (${grid.model} / ${grid.split})`,
  );
}

/** The ladder transitions (adjacent budgets) of §2's list: the first, then those not from text only… as ladderTransitions does. */
function ladderOf(ts: readonly OverviewOpenTransition[]): OverviewOpenTransition[] {
  const first = ts[0];
  return ts.filter((t, i) => i === 0 || t.from !== first?.from);
}

export function OpenFlowsChart({ grid, open, onQueue, height = 340 }: { grid: OverviewGrid; open: OverviewOpen; onQueue: OpenQueue; height?: number }) {
  const configs = open.configs;
  const ladder = useMemo(() => ladderOf(open.transitions), [open.transitions]);
  const pos = useMemo(() => new Map(configs.map((c, i) => [c, i])), [configs]);
  const mid = useCallback((t: { from: string; to: string }) => ((pos.get(t.from) ?? 0) + (pos.get(t.to) ?? 0)) / 2, [pos]);
  const onLadder = useMemo(() => {
    const first = ladder[0];
    return new Set(first ? [first.from, ...ladder.map((t) => t.to)] : configs.slice(0, 1));
  }, [ladder, configs]);
  const label = `Mean score and flows: ${grid.model} / ${grid.split}`;
  const maxFlow = Math.max(1, ...ladder.flatMap((t) => [t.improved, t.regressed]));
  const mean = (c: string) => 100 * (open.mean[c] ?? 0);

  const option = useMemo<ChartOption>(
    () => ({
      grid: { left: 56, right: 56, top: 44, bottom: configs.length > 8 ? 60 : 30 },
      legend: { data: ['mean score %', 'improved', 'regressed'], top: 0, left: 'center' },
      tooltip: {
        trigger: 'item',
        formatter: (p: unknown) => {
          const q = p as { seriesName: string; dataIndex: number; data: { config?: string } };
          if (q.seriesName === 'mean score %') {
            const c = q.data.config ?? '';
            return `${html(c)}: mean ${mean(c).toFixed(2)}% over ${open.n} items`;
          }
          const t = ladder[q.dataIndex];
          if (!t) return '';
          return `${html(t.from)} → ${html(t.to)}<br/>improved ${t.improved}, regressed ${t.regressed} (by more than ε = ${open.eps})<br/>mean ${signed(t.netPts)} pts`;
        },
      },
      xAxis: {
        type: 'value',
        min: -0.5,
        max: configs.length - 0.5,
        interval: 1,
        splitLine: { show: false },
        axisTick: { show: false },
        axisLabel: {
          customValues: configs.map((_, i) => i),
          formatter: (v: number) => configs[v] ?? '',
          fontFamily: 'ui-monospace, monospace',
          rotate: configs.length > 8 ? 35 : 0,
        },
      },
      yAxis: [
        { type: 'value', name: 'mean score %', min: 0, max: 100 },
        { type: 'value', name: 'items', min: -maxFlow, max: maxFlow, splitLine: { show: false }, axisLabel: { formatter: (v: number) => String(Math.abs(v)) } },
      ],
      series: [
        {
          name: 'improved',
          type: 'bar',
          yAxisIndex: 1,
          stack: 'flow',
          barWidth: 22,
          itemStyle: { color: '#2e9d4a' },
          label: { show: true, position: 'top', formatter: (p: { value: unknown }) => ((p.value as number[])[1] ? `+${(p.value as number[])[1]}` : '') },
          data: ladder.map((t) => [mid(t), t.improved]),
        },
        {
          name: 'regressed',
          type: 'bar',
          yAxisIndex: 1,
          stack: 'flow',
          barWidth: 22,
          itemStyle: { color: '#d1453b' },
          label: { show: true, position: 'bottom', formatter: (p: { value: unknown }) => ((p.value as number[])[1] ? `−${-(p.value as number[])[1]!}` : '') },
          data: ladder.map((t) => [mid(t), -t.regressed]),
        },
        {
          name: 'mean score %',
          type: 'line',
          yAxisIndex: 0,
          symbolSize: 9,
          lineStyle: { width: 3, color: '#2b4c9b' },
          itemStyle: { color: '#2b4c9b' },
          label: { show: true, position: 'top', formatter: (p: { value: unknown }) => ((p.value as number[])[1] ?? 0).toFixed(1) },
          data: configs.flatMap((c, i) => (onLadder.has(c) ? [{ value: [i, mean(c)], config: c }] : [])),
        },
      ],
    }),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- mean reads open.mean, a dependency
    [configs, ladder, maxFlow, mid, onLadder, open],
  );

  const marks = useCallback(
    (chart: import('echarts').ECharts) => {
      const out: Record<string, [number, number] | null> = {};
      for (const t of ladder) {
        const x = mid(t);
        const key = `${t.from}>${t.to}`;
        out[`regressed:${key}`] = t.regressed > 0 ? (chart.convertToPixel({ xAxisIndex: 0, yAxisIndex: 1 }, [x, -t.regressed / 2]) as [number, number]) : null;
        out[`improved:${key}`] = t.improved > 0 ? (chart.convertToPixel({ xAxisIndex: 0, yAxisIndex: 1 }, [x, t.improved / 2]) as [number, number]) : null;
      }
      return out;
    },
    [ladder, mid],
  );

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
          if (p.seriesName === 'regressed' && t) openScoreFlow(grid, onQueue, t, 'regressed');
          else if (p.seriesName === 'improved' && t) openScoreFlow(grid, onQueue, t, 'improved');
        }}
        csv={() => [
          ['model', 'split', 'from', 'to', 'improved', 'regressed', 'net_pts', 'eps'],
          ...open.transitions.map((t) => [grid.model, grid.split, t.from, t.to, t.improved, t.regressed, t.netPts, open.eps]),
        ]}
      />
    </div>
  );
}

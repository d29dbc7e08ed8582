/**
 * The paper's central figure: accuracy per config (line, left axis) drawn with the rescued
 * (up, green) and harmed (down, red) items of each budget-ladder transition (bars between the
 * two budgets, right axis), so a small net change made of two large opposing flows is visible
 * at a glance. Hover gives the McNemar p; clicking a bar opens exactly its items in the queue.
 */
import { useCallback, useMemo } from 'react';
import type { OverviewGrid } from '../../../shared/api/overview';
import { correctAtItems, ladderTransitions } from '../../../shared/api/overview-marks';
import type { QueueFilter } from '../../../shared/api/queue-filter';
import { EChart, type ChartOption } from './EChart';

export type OpenQueue = (patch: Partial<QueueFilter>, label: string) => void;

const pval = (p: number) => (p < 1e-4 ? p.toExponential(1) : p.toFixed(4));
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`;

export function FlowsChart({ grid, onQueue }: { grid: OverviewGrid; onQueue: OpenQueue }) {
  const m = grid.metrics;
  const configs = useMemo(() => m?.configs ?? [], [m]);
  const ladder = useMemo(() => ladderTransitions(grid.transitions), [grid.transitions]);
  const pos = useMemo(() => new Map(configs.map((c, i) => [c, i])), [configs]);
  const mid = useCallback((t: { from: string; to: string }) => ((pos.get(t.from) ?? 0) + (pos.get(t.to) ?? 0)) / 2, [pos]);
  const label = `Accuracy and flows: ${grid.model} / ${grid.split}`;
  const maxFlow = Math.max(1, ...ladder.flatMap((t) => [t.rescued, t.harmed]));

  const option = useMemo<ChartOption>(
    () => ({
      grid: { left: 56, right: 56, top: 40, bottom: 40 },
      legend: { data: ['accuracy %', 'rescued', 'harmed'] },
      tooltip: {
        trigger: 'item',
        formatter: (p: unknown) => {
          const q = p as { seriesName: string; dataIndex: number };
          if (q.seriesName === 'accuracy %') {
            const c = configs[q.dataIndex] ?? '';
            return `${c}: ${(100 * (m?.accuracy[c] ?? 0)).toFixed(2)}% (${m?.correctCounts[c] ?? 0} / ${m?.n ?? 0})`;
          }
          const t = ladder[q.dataIndex];
          if (!t) return '';
          return `${t.from} → ${t.to}<br/>rescued ${t.rescued}, harmed ${t.harmed}<br/>net ${signed(t.netPts)} pts, churn ${(100 * t.churnRate).toFixed(1)}%<br/>McNemar p = ${pval(t.mcnemarP)}`;
        },
      },
      xAxis: {
        type: 'value',
        min: -0.5,
        max: configs.length - 0.5,
        interval: 1,
        splitLine: { show: false },
        axisLabel: { formatter: (v: number) => configs[v] ?? '' },
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
          label: { show: true, position: 'top', formatter: (p: { value: unknown }) => `+${(p.value as number[])[1]}` },
          data: ladder.map((t) => [mid(t), t.rescued]),
        },
        {
          name: 'harmed',
          type: 'bar',
          yAxisIndex: 1,
          stack: 'flow',
          barWidth: 22,
          itemStyle: { color: '#d1453b' },
          label: { show: true, position: 'bottom', formatter: (p: { value: unknown }) => `−${-(p.value as number[])[1]!}` },
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
          data: configs.map((c, i) => [i, 100 * (m?.accuracy[c] ?? 0)]),
        },
      ],
    }),
    [configs, ladder, m, maxFlow, mid],
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
      return out;
    },
    [ladder, mid],
  );

  const openFlow = (t: { from: string; to: string }, kind: 'harmed' | 'rescued') =>
    onQueue({ model: grid.model, split: grid.split, transition: `${t.from}>${t.to}`, transitionKind: kind }, `${kind} ${t.from} → ${t.to} (${grid.model} / ${grid.split})`);

  if (!m) return null;
  return (
    <div className="flows">
      <EChart
        label={label}
        testId={`flows-${grid.model}-${grid.split}`}
        option={option}
        marks={marks}
        onClick={(p) => {
          const t = ladder[p.dataIndex];
          if (p.seriesName === 'harmed' && t) openFlow(t, 'harmed');
          else if (p.seriesName === 'rescued' && t) openFlow(t, 'rescued');
          else if (p.seriesName === 'accuracy %') {
            const c = configs[p.dataIndex];
            if (c) onQueue({ model: grid.model, split: grid.split, itemSet: { label: `correct at ${c}`, ids: correctAtItems(grid, c) } }, `correct at ${c} (${grid.model} / ${grid.split})`);
          }
        }}
        csv={() => [
          ['model', 'split', 'from', 'to', 'rescued', 'harmed', 'churn', 'churn_rate', 'net_pts', 'mcnemar_p'],
          ...grid.transitions.map((t) => [grid.model, grid.split, t.from, t.to, t.rescued, t.harmed, t.churn, t.churnRate, t.netPts, t.mcnemarP]),
        ]}
      />
      <table className="numbers" aria-label={`Transitions: ${grid.model} / ${grid.split}`}>
        <thead>
          <tr>
            <th>transition</th>
            <th>rescued</th>
            <th>harmed</th>
            <th>net pts</th>
            <th>churn %</th>
            <th>McNemar p</th>
          </tr>
        </thead>
        <tbody>
          {grid.transitions.map((t) => (
            <tr key={`${t.from}>${t.to}`} data-transition={`${t.from}>${t.to}`}>
              <td>
                {t.from} → {t.to}
              </td>
              <td>
                <button type="button" className="link" aria-label={`Open rescued items of ${t.from} → ${t.to} (${grid.model} / ${grid.split})`} data-count={t.rescued} onClick={() => openFlow(t, 'rescued')}>
                  {t.rescued}
                </button>
              </td>
              <td>
                <button type="button" className="link" aria-label={`Open harmed items of ${t.from} → ${t.to} (${grid.model} / ${grid.split})`} data-count={t.harmed} onClick={() => openFlow(t, 'harmed')}>
                  {t.harmed}
                </button>
              </td>
              <td data-net={t.netPts}>{signed(t.netPts)}</td>
              <td>{(100 * t.churnRate).toFixed(2)}</td>
              <td data-p={t.mcnemarP}>{pval(t.mcnemarP)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

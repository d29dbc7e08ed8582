/**
 * The confidence cascade (docs/metrics.md §5): Pareto front of (mean shared frames, accuracy), the
 * fixed reference budget, the operating point and the held-out figure. The reference is chosen
 * here and recomputed by the backend (overview:cascade).
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { OverviewCascade, OverviewGrid } from '../../../shared/api/overview';
import { useClient } from '../../api/use-client';
import { EChart, html, num, type ChartOption } from './EChart';
import type { OpenQueue } from './FlowsChart';
import type { OpenMark } from './open-mark';

const pct = (x: number | null | undefined) => (x === null || x === undefined ? '—' : `${(100 * x).toFixed(2)}%`);
const tauText = (t: number | null) => (t === null ? '∞' : t.toFixed(4));

export function CascadeChart({ grid, onQueue, onMark }: { grid: OverviewGrid; onQueue: OpenQueue; onMark: OpenMark }) {
  const client = useClient();
  const budgets = grid.cascadeBudgets;
  // The overview's answer holds the cascade (or why there is none) against this reference; only
  // another choice is asked of the backend, which reads the whole grid to answer.
  const defaultReference = grid.cascade?.reference ?? budgets[budgets.length - 1] ?? '';
  const [reference, setReference] = useState(defaultReference);
  const [state, setState] = useState<{ cascade: OverviewCascade | null; note: string | null }>({ cascade: grid.cascade, note: grid.cascadeNote });
  useEffect(() => {
    if (reference === '' || reference === defaultReference || budgets.length < 2) {
      setState({ cascade: grid.cascade, note: grid.cascadeNote });
      return;
    }
    let live = true;
    void client.call('overview:cascade', { model: grid.model, split: grid.split, budgets, reference }).then((r) => {
      if (live) setState(r.ok ? r.value : { cascade: null, note: r.error.message });
    });
    return () => {
      live = false;
    };
  }, [client, grid, budgets, reference, defaultReference]);
  const c = state.cascade;
  // A point's items: those the cascade at its τ answers correctly (the point's accuracy counts them).
  const openCascadeItems = async (tau: number | null) => {
    if (!c) return;
    const r = await client.call('overview:cascade-items', { model: grid.model, split: grid.split, budgets: c.budgets, reference: c.reference, tau });
    if (!r.ok) return setState((s) => ({ ...s, note: r.error.message }));
    const what = `cascade τ ${tauText(tau)} correct`;
    onQueue({ model: grid.model, split: grid.split, itemSet: { label: what, ids: r.value.correct } }, `${what} (${grid.model} / ${grid.split})`);
  };
  const marks = useCallback(
    (chart: import('echarts').ECharts) => {
      const out: Record<string, [number, number] | null> = {};
      if (!c) return out;
      out.reference = chart.convertToPixel({ seriesName: 'reference' }, [c.referenceFrames, 100 * c.referenceAccuracy]) as [number, number];
      c.pareto.forEach((p) => {
        out[`tau:${tauText(p.tau)}`] = chart.convertToPixel({ seriesName: 'Pareto front' }, [p.meanSharedCost, 100 * p.accuracy]) as [number, number];
      });
      return out;
    },
    [c],
  );
  const label = `Confidence cascade: ${grid.model} / ${grid.split}`;
  const option = useMemo<ChartOption>(() => {
    if (!c) return {};
    return {
      grid: { left: 56, right: 30, top: 36, bottom: 44 },
      legend: { data: ['Pareto front', 'reference', 'operating point'], top: 0, right: 30 },
      tooltip: {
        trigger: 'item',
        formatter: (p: unknown) => {
          const q = p as { seriesName: string; data: { value: number[]; tau?: number | null } };
          const [frames = 0, acc = 0] = q.data.value;
          const head = q.seriesName === 'reference' ? `reference ${html(c.reference)}` : `${html(q.seriesName)} τ ${tauText(q.data.tau ?? null)}`;
          return `${head}<br/>accuracy ${num(acc)}% at ${num(frames)} mean frames<br/><small>click to open the items it gets right</small>`;
        },
      },
      xAxis: { type: 'value', name: 'mean shared frames', nameLocation: 'middle', nameGap: 30, scale: true },
      yAxis: { type: 'value', name: 'accuracy %', scale: true },
      series: [
        { name: 'Pareto front', type: 'line', step: 'end', symbolSize: 7, data: c.pareto.map((p) => ({ value: [p.meanSharedCost, 100 * p.accuracy], tau: p.tau })) },
        { name: 'reference', type: 'scatter', symbol: 'diamond', symbolSize: 14, itemStyle: { color: '#555' }, data: [{ value: [c.referenceFrames, 100 * c.referenceAccuracy] }] },
        ...(c.operatingPoint
          ? [
              {
                name: 'operating point',
                type: 'scatter' as const,
                symbolSize: 16,
                itemStyle: { color: '#d1453b' },
                data: [{ value: [c.operatingPoint.meanSharedCost, 100 * c.operatingPoint.accuracy], tau: c.operatingPoint.tau }],
              },
            ]
          : []),
      ],
    };
  }, [c]);
  return (
    <div className="cascade" aria-label={label} role="group">
      {budgets.length >= 2 && (
        <label>
          Reference budget
          <select aria-label={`Reference budget: ${grid.model} / ${grid.split}`} value={reference} onChange={(e) => setReference(e.target.value)}>
            {budgets.map((b) => (
              <option key={b} value={b}>
                {b}
              </option>
            ))}
          </select>
        </label>
      )}
      {!c ? (
        <p className="note" role="note">
          No cascade: {state.note ?? 'not available'}
        </p>
      ) : (
        <>
          <EChart
            label={label}
            testId={`cascade-${grid.model}-${grid.split}`}
            option={option}
            height={260}
            marks={marks}
            onClick={(p) => {
              if (!c) return;
              const tau = (p.data as { tau?: number | null } | undefined)?.tau;
              if (p.seriesName === 'reference') {
                onMark({ kind: 'correct', config: c.reference });
              } else if (tau !== undefined) {
                void openCascadeItems(tau);
              }
            }}
            csv={() => [
              ['tau', 'accuracy', 'mean_shared_frames', 'mean_unshared_frames'],
              ...c.pareto.map((p) => [p.tau === null ? 'inf' : p.tau, p.accuracy, p.meanSharedCost, p.meanUnsharedCost]),
            ]}
          />
          <p className="cascade-summary">
            {c.budgets.join(' → ')} vs {c.reference} ({c.n} items, signal {c.signal}): reference {pct(c.referenceAccuracy)} at {c.referenceFrames} frames.{' '}
            {c.operatingPoint
              ? `Operating point τ ${tauText(c.operatingPoint.tau)}: ${pct(c.operatingPoint.accuracy)} at ${c.operatingPoint.meanSharedCost.toFixed(2)} frames (${pct(c.operatingPoint.savingVsReference)} fewer).`
              : `No τ reaches ${c.reference}'s accuracy.`}{' '}
            Held out (seed {c.heldOut.seed}, tune {c.heldOut.nTune} / eval {c.heldOut.nEval}):{' '}
            {c.heldOut.tau === null && c.heldOut.accuracy === null
              ? 'no τ reached the reference on the tuning half.'
              : `${pct(c.heldOut.accuracy)} vs reference ${pct(c.heldOut.referenceAccuracy)}, saving ${pct(c.heldOut.savingVsReference)}.`}
            {c.paretoPoints > c.pareto.length && ` Drawn: ${c.pareto.length} of the front's ${c.paretoPoints} points, evenly spread (\`flipbook cascade\` lists them all).`}
          </p>
        </>
      )}
    </div>
  );
}

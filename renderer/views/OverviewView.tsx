/**
 * The overview (issue 5 §1): per (model, split) the accuracy curve with its rescued/harmed
 * flows, the headline item-level rates, trajectory classes, flip matrix, trajectory heatmap,
 * iso-compute comparisons and the confidence cascade; across models the matched-grid table.
 * Every mark opens the queue on exactly its items (an unsaved view the user can save).
 */
import { useEffect, useState } from 'react';
import type { MatchedGridTable, Overview, OverviewGrid, OverviewMetrics } from '../../shared/api/overview';
import { headroomItems } from '../../shared/api/overview-marks';
import { useClient } from '../api/use-client';
import { FlowsChart, type OpenQueue } from '../components/charts/FlowsChart';
import { WinsChart } from '../components/charts/WinsChart';
import { ClassChart } from '../components/charts/ClassChart';
import { TrajectoryHeatmap } from '../components/charts/TrajectoryHeatmap';
import { CascadeChart } from '../components/charts/CascadeChart';

const pct = (x: number | null | undefined) => (x === null || x === undefined ? '—' : (100 * x).toFixed(2));

function Rates({ grid, onQueue }: { grid: OverviewGrid; onQueue: OpenQueue }) {
  const m = grid.metrics;
  if (!m) return null;
  const where = `${grid.model} / ${grid.split}`;
  const open = (label: string, pick: (r: OverviewGrid['rows'][number]) => boolean) =>
    onQueue({ model: grid.model, split: grid.split, itemSet: { label, ids: grid.rows.filter(pick).map((r) => r.sampleId) } }, `${label} (${where})`);
  const entries: { name: string; value: string; count: number; go?: () => void }[] = [
    {
      name: 'oracle headroom',
      value: `${m.oracleHeadroomPts.toFixed(2)} pts (oracle ${pct(m.oracleAccuracy)}% vs best fixed ${m.bestFixed ?? '—'})`,
      count: headroomItems(grid).length,
      go: () => onQueue({ model: grid.model, split: grid.split, itemSet: { label: 'oracle headroom', ids: headroomItems(grid) } }, `oracle headroom (${where})`),
    },
    { name: 'visual confusion', value: `${pct(m.visualConfusionRate)}%`, count: m.counts.visuallyConfused, go: () => open('visually confused', (r) => r.confused) },
    { name: 'visual confusion (visual only)', value: `${pct(m.visualConfusionRateVisualOnly)}%`, count: m.counts.visuallyConfusedVisualOnly },
    {
      name: 'text overwrite',
      value: `${pct(m.textOverwriteRate)}% of items, ${pct(m.textOverwriteRateOfTextCorrect)}% of text-correct`,
      count: m.counts.textOverwritten,
      go: () => open('text overwritten', (r) => r.textOverwritten),
    },
    {
      name: 'terminal regressions',
      value: `${pct(m.terminalRegressionRate)}% (${m.terminalConfig ?? '—'})`,
      count: m.counts.terminalRegressions,
      go: () => open('terminal regression', (r) => r.terminalRegression),
    },
  ];
  return (
    <dl className="rates" aria-label={`Rates: ${where}`}>
      {entries.map((e) => (
        <div key={e.name} data-rate={e.name}>
          <dt>{e.name}</dt>
          <dd>
            {e.value} ·{' '}
            {e.go ? (
              <button type="button" className="link" aria-label={`Open ${e.name} items (${where})`} onClick={e.go}>
                {e.count} items
              </button>
            ) : (
              `${e.count} items`
            )}
          </dd>
        </div>
      ))}
      <div>
        <dt>items</dt>
        <dd>
          {m.n} complete, {m.nExcluded} excluded
        </dd>
      </div>
    </dl>
  );
}

function IsoCompute({ grid }: { grid: OverviewGrid }) {
  if (grid.iso.length === 0) return <p className="note">No iso-compute groups: no two configs with different frame counts have frames × pixels within ±5%.</p>;
  return (
    <table className="numbers" aria-label={`Iso-compute: ${grid.model} / ${grid.split}`}>
      <thead>
        <tr>
          <th>group</th>
          <th>best</th>
          <th>headroom pts</th>
          <th>pair</th>
          <th>only a</th>
          <th>only b</th>
          <th>both</th>
          <th>neither</th>
        </tr>
      </thead>
      <tbody>
        {grid.iso.flatMap((g) =>
          g.pairs.map((p) => (
            <tr key={`${g.configs.join(',')}:${p.a}:${p.b}`}>
              <td>{g.configs.join(', ')}</td>
              <td>
                {g.bestConfig} ({pct(g.bestAccuracy)}%)
              </td>
              <td>{g.oracleHeadroomPts.toFixed(2)}</td>
              <td>
                {p.a} vs {p.b}
              </td>
              <td>{p.onlyA}</td>
              <td>{p.onlyB}</td>
              <td>{p.both}</td>
              <td>{p.neither}</td>
            </tr>
          )),
        )}
      </tbody>
    </table>
  );
}

function MatchedGrid({ table, model, split }: { table: MatchedGridTable; model: string | null; split: string | null }) {
  const row = (m: OverviewMetrics) => [
    m.n,
    m.bestFixed ?? '—',
    pct(m.oracleAccuracy),
    m.oracleHeadroomPts.toFixed(2),
    pct(m.visualConfusionRate),
    pct(m.visualConfusionRateVisualOnly),
    pct(m.textOverwriteRate),
    pct(m.textOverwriteRateOfTextCorrect),
    pct(m.terminalRegressionRate),
  ];
  return (
    <section aria-label="Matched grid" className="matched-grid">
      <h3>
        Matched grid ({table.source === 'setting' ? 'project setting' : 'proposed'}): {table.configs.join(', ') || '—'}
      </h3>
      {table.leftOut.length > 0 && (
        <ul aria-label="Models left out of the matched grid">
          {table.leftOut.map((l) => (
            <li key={l.model}>
              {l.model} — {l.reason}
            </li>
          ))}
        </ul>
      )}
      <table className="numbers" aria-label="Matched-grid metrics">
        <thead>
          <tr>
            {['split', 'model', 'n', 'best fixed', 'oracle %', 'headroom pts', 'confusion %', 'confusion visual-only %', 'text overwrite %', 'of text-correct %', 'terminal regr. %'].map((h) => (
              <th key={h}>{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.splits
            .filter((s) => split === null || s.split === split)
            .flatMap((s) => [
              ...s.perModel
                .filter((p) => model === null || p.model === model)
                .map((p) => (
                  <tr key={`${s.split}/${p.model}`} data-split={s.split} data-model={p.model} data-headroom={p.metrics.oracleHeadroomPts} data-confusion={p.metrics.visualConfusionRate} data-n={p.metrics.n}>
                    <td>{s.split}</td>
                    <td>{p.model}</td>
                    {row(p.metrics).map((v, i) => (
                      <td key={i}>{v}</td>
                    ))}
                  </tr>
                )),
              ...s.leftOut.map((l) => (
                <tr key={`${s.split}/${l.model}/out`} data-split={s.split} data-model={l.model} data-left-out="true">
                  <td>{s.split}</td>
                  <td>{l.model}</td>
                  <td colSpan={9}>left out: lacks {l.missing.join(', ')} (not scored as wrong)</td>
                </tr>
              )),
            ])}
        </tbody>
      </table>
    </section>
  );
}

export function OverviewView({ onQueue }: { onQueue: OpenQueue }) {
  const client = useClient();
  const [data, setData] = useState<Overview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [model, setModel] = useState<string | null>(null);
  const [split, setSplit] = useState<string | null>(null);
  useEffect(() => {
    void client.call('overview:get', {}).then((r) => (r.ok ? setData(r.value) : setError(r.error.message)));
  }, [client]);
  if (error) return <p role="alert">Overview failed: {error}</p>;
  if (!data) return <p role="status">Computing the overview…</p>;
  const models = [...new Set(data.grids.map((g) => g.model))].sort();
  const splits = [...new Set(data.grids.map((g) => g.split))].sort();
  const grids = data.grids.filter((g) => (model === null || g.model === model) && (split === null || g.split === split));
  return (
    <div className="overview-view" data-ready="true">
      <div className="filters" role="group" aria-label="Overview filters">
        <label>
          Model
          <select aria-label="Overview model" value={model ?? ''} onChange={(e) => setModel(e.target.value || null)}>
            <option value="">all models</option>
            {models.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </label>
        <label>
          Split
          <select aria-label="Overview split" value={split ?? ''} onChange={(e) => setSplit(e.target.value || null)}>
            <option value="">all splits</option>
            {splits.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
      </div>
      <MatchedGrid table={data.matchedGrid} model={model} split={split} />
      {grids.map((g) => (
        <section key={`${g.model}/${g.split}`} className="overview-grid" aria-label={`Overview: ${g.model} / ${g.split}`}>
          <h3>
            {g.model} / {g.split}
          </h3>
          {g.kind !== 'mcqa' ? (
            <p className="note">Open-ended grid: flows and cascades are MCQA measures; see `flipbook metrics` for the oracle gap.</p>
          ) : (
            <>
              <FlowsChart grid={g} onQueue={onQueue} />
              <Rates grid={g} onQueue={onQueue} />
              <div className="overview-pair">
                <ClassChart grid={g} onQueue={onQueue} />
                <WinsChart grid={g} onQueue={onQueue} />
              </div>
              <TrajectoryHeatmap grid={g} onQueue={onQueue} />
              <h4>Iso-compute</h4>
              <IsoCompute grid={g} />
              <h4>Confidence cascade</h4>
              <CascadeChart grid={g} />
            </>
          )}
        </section>
      ))}
    </div>
  );
}

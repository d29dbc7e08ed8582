/**
 * The overview: per (model, split) the accuracy curve with its rescued/harmed
 * flows, the headline item-level rates, trajectory classes, flip matrix, trajectory heatmap,
 * iso-compute comparisons and the confidence cascade; across models the matched-grid table.
 * Every mark opens the queue on exactly its items (an unsaved view the user can save).
 */
import { useState, type ReactNode } from 'react';
import type { GridInfo } from '../../shared/api/contract';
import type { MatchedGridTable, OverviewGrid, OverviewMetrics } from '../../shared/api/overview';
import { headroomCount } from '../../shared/api/overview-marks';
import { useQuery } from '../api/use-query';
import { FlowsChart, type OpenQueue } from '../components/charts/FlowsChart';
import { TransitionsTable } from '../components/charts/TransitionsTable';
import { WinsChart } from '../components/charts/WinsChart';
import { ClassChart } from '../components/charts/ClassChart';
import { TrajectoryHeatmap, type OpenItem } from '../components/charts/TrajectoryHeatmap';
import { CascadeChart } from '../components/charts/CascadeChart';
import { useOpenMark, type OpenMark } from '../components/charts/open-mark';
import { OpenGridOverview } from '../components/OpenGridOverview';
import { MainProtocolPicker, ProtocolsPanel } from '../components/ProtocolsPanel';

const pct = (x: number | null | undefined) => (x === null || x === undefined ? '—' : (100 * x).toFixed(2));

type Kpi = { name: string; value: string; unit: string; sub: string; note?: string; count: number; countLabel?: string; go?: () => void; tone?: 'bad' | 'warn' | 'info' };

/** The headline item-level rates of one grid as a compact KPI block; each opens its items. */
function Rates({ grid, onMark, mixedResolution }: { grid: OverviewGrid; onMark: OpenMark; mixedResolution: boolean }) {
  const m = grid.metrics;
  if (!m) return null;
  const where = `${grid.model} / ${grid.split}`;
  const entries: Kpi[] = [
    {
      name: 'oracle headroom',
      value: m.oracleHeadroomPts.toFixed(2),
      unit: 'pts',
      sub: `oracle ${pct(m.oracleAccuracy)}% vs best fixed ${m.bestFixed ?? '—'}`,
      count: headroomCount(grid),
      tone: 'info',
      go: () => onMark({ kind: 'headroom' }),
    },
    {
      name: 'visual confusion',
      value: pct(m.visualConfusionRate),
      unit: '%',
      sub: `visual configs only: ${pct(m.visualConfusionRateVisualOnly)}% (${m.counts.visuallyConfusedVisualOnly} items)`,
      // docs/metrics.md §1: iso-compute pairs are not an ordering, so they are never confusion here.
      note: mixedResolution
        ? 'Differs from the published release by definition: Flipbook orders configs by dominance (fewer-or-equal frames and pixels), so mixed-resolution pairs such as 32f_302k vs 128f_76k are never counted; the release counts them and reports a higher rate (30.41% vs 25.32% for Qwen2.5-VL-7B / V1_short).'
        : undefined,
      count: m.counts.visuallyConfused,
      tone: 'warn',
      go: () => onMark({ kind: 'flag', flag: 'visuallyConfused' }),
    },
    {
      name: 'text overwrite',
      value: pct(m.textOverwriteRate),
      unit: '% of items',
      sub: `${pct(m.textOverwriteRateOfTextCorrect)}% of the ${m.counts.textCorrect} text-correct`,
      count: m.counts.textOverwritten,
      tone: 'info',
      go: () => onMark({ kind: 'flag', flag: 'textOverwritten' }),
    },
    {
      name: 'terminal regressions',
      value: pct(m.terminalRegressionRate),
      unit: '%',
      sub: `wrong at ${m.terminalConfig ?? '—'}, right at a smaller budget`,
      count: m.counts.terminalRegressions,
      tone: 'bad',
      go: () => onMark({ kind: 'flag', flag: 'terminalRegression' }),
    },
  ];
  return (
    <dl className="kpis" aria-label={`Rates: ${where}`}>
      {entries.map((e) => (
        <div key={e.name} className={`kpi ${e.tone ?? ''}`} data-rate={e.name}>
          <dt>{e.name}</dt>
          <dd>
            <span className="kpi-value">
              {e.value}
              <small>{e.unit}</small>
            </span>
            <span className="kpi-sub">{e.sub}</span>
            {e.note && (
              <span className="kpi-note" role="note" aria-label={`About ${e.name}`}>
                {e.note}
              </span>
            )}
            {e.go ? (
              <button type="button" className="kpi-go" aria-label={`${e.count} items → open the ${e.name} items (${where})`} onClick={e.go}>
                {e.count} items →
              </button>
            ) : (
              <span className="kpi-sub">{e.count} items</span>
            )}
          </dd>
        </div>
      ))}
      <div className="kpi kpi-n">
        <dt>items</dt>
        <dd>
          <span className="kpi-sub">
            {m.n} complete · {m.nExcluded} excluded · {m.configs.length} configs
          </span>
        </dd>
      </div>
    </dl>
  );
}

function IsoCompute({ grid }: { grid: OverviewGrid }) {
  if (grid.iso.length === 0) return <p className="note">No iso-compute groups: no two configs with different frame counts have frames × pixels within ±5%.</p>;
  return (
    <div className="table-scroll">
      <table className="numbers" aria-label={`Iso-compute: ${grid.model} / ${grid.split}`}>
        <thead>
          <tr>
            <th className="text">group</th>
            <th className="text">best</th>
            <th>headroom pts</th>
            <th className="text">pair</th>
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
                <td className="text">{g.configs.join(', ')}</td>
                <td className="text">
                  {g.bestConfig} ({pct(g.bestAccuracy)}%)
                </td>
                <td>{g.oracleHeadroomPts.toFixed(2)}</td>
                <td className="text">
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
    </div>
  );
}

const MATCHED_HEADERS: [string, boolean][] = [
  ['split', true],
  ['model', true],
  ['n', false],
  ['best fixed', true],
  ['oracle %', false],
  ['headroom pts', false],
  ['confusion %', false],
  ['confusion visual-only %', false],
  ['text overwrite %', false],
  ['of text-correct %', false],
  ['terminal regr. %', false],
];

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
    <section aria-label="Matched grid" className="panel matched-grid">
      <header className="panel-head">
        <h2>Matched grid across models</h2>
        <span className="badge">{table.source === 'setting' ? 'project setting' : 'proposed'}</span>
        <span className="configs">{table.configs.length > 0 ? table.configs.map((c) => <code key={c}>{c}</code>) : '—'}</span>
      </header>
      <p className="caption">The same configs and items for every model, so the rates compare across models. Models lacking a config are left out, not scored as wrong.</p>
      {table.leftOut.length > 0 && (
        <ul className="left-out" aria-label="Models left out of the matched grid">
          {table.leftOut.map((l) => (
            <li key={l.model}>
              <strong>{l.model}</strong> left out — {l.reason}
            </li>
          ))}
        </ul>
      )}
      <div className="table-scroll">
        <table className="numbers" aria-label="Matched-grid metrics">
          <thead>
            <tr>
              {MATCHED_HEADERS.map(([h, text]) => (
                <th key={h} className={text ? 'text' : undefined}>
                  {h}
                </th>
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
                    <tr
                      key={`${s.split}/${p.model}`}
                      data-split={s.split}
                      data-model={p.model}
                      data-headroom={p.metrics.oracleHeadroomPts}
                      data-confusion={p.metrics.visualConfusionRate}
                      data-n={p.metrics.n}
                    >
                      <td className="text">{s.split}</td>
                      <td className="text">{p.model}</td>
                      {row(p.metrics).map((v, i) => (
                        <td key={i} className={i === 1 ? 'text' : undefined}>
                          {v}
                        </td>
                      ))}
                    </tr>
                  )),
                ...s.leftOut.map((l) => (
                  <tr key={`${s.split}/${l.model}/out`} className="left-out-row" data-split={s.split} data-model={l.model} data-left-out="true">
                    <td className="text">{s.split}</td>
                    <td className="text">{l.model}</td>
                    <td colSpan={9} className="text">
                      left out: lacks {l.missing.join(', ')} (not scored as wrong)
                    </td>
                  </tr>
                )),
              ])}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** One titled block of a grid card: a heading, a one-line caption saying what it shows, the content. */
function Panel({ title, caption, wide, children }: { title: string; caption: string; wide?: boolean; children: ReactNode }) {
  return (
    <section className={`panel${wide ? ' wide' : ''}`}>
      <header className="panel-head">
        <h3>{title}</h3>
      </header>
      <p className="caption">{caption}</p>
      {children}
    </section>
  );
}

function GridCard({ g, onQueue, onItem, info }: { g: OverviewGrid; onQueue: OpenQueue; onItem: OpenItem; info: GridInfo | undefined }) {
  const mixedResolution = new Set((info?.configs ?? []).filter((c) => c.frames > 0).map((c) => c.pixelCount)).size > 1;
  const m = g.metrics;
  const { openMark, error } = useOpenMark(g, onQueue);
  return (
    <section className="overview-grid card" aria-label={`Overview: ${g.model} / ${g.split}`}>
      <header className="card-head">
        <h2>
          {g.model} <span className="sep">/</span> {g.split}
        </h2>
        {m && (
          <span className="card-meta">
            {m.n} items · {m.configs.length} configs · best fixed <code>{m.bestFixed ?? '—'}</code>
            {m.bestFixed && ` ${pct(m.accuracy[m.bestFixed])}%`} · oracle {pct(m.oracleAccuracy)}%
          </span>
        )}
        {g.open && (
          <span className="card-meta">
            {g.open.n} items · {g.open.configs.length} configs · best fixed <code>{g.open.bestFixed ?? '—'}</code>
            {g.open.bestFixed && ` ${pct(g.open.mean[g.open.bestFixed])}%`} · oracle {pct(g.open.oracleMean)}%
          </span>
        )}
        {info && (
          <span className="card-meta" aria-label={`Score: ${g.model} / ${g.split}`}>
            score: <code>{info.score}</code>
          </span>
        )}
      </header>
      {error && <p role="alert">{error}</p>}
      {g.kind !== 'mcqa' ? (
        <OpenGridOverview grid={g} onQueue={onQueue} onMark={openMark} />
      ) : (
        <>
          <div className="card-hero">
            <div className="hero-figure">
              <h3>Accuracy and flows</h3>
              <p className="caption">
                Line: accuracy per config. Bars: items rescued (green, above) and harmed (red, below) between adjacent budgets — hover for McNemar p, click to open the items.
              </p>
              <FlowsChart grid={g} onQueue={onQueue} onMark={openMark} height={340} />
            </div>
            <Rates grid={g} onMark={openMark} mixedResolution={mixedResolution} />
          </div>
          <div className="card-grid">
            <Panel title="Transitions" caption="Every pair of configs: rescued / harmed items (click to open), net change, churn and McNemar p (bold: p < 0.05).">
              <TransitionsTable grid={g} onQueue={onQueue} />
            </Panel>
            <Panel title="Flip matrix" caption="Items correct under the row config and wrong under the column config; click a cell to open them.">
              <WinsChart grid={g} onMark={openMark} />
            </Panel>
            <Panel title="Trajectory classes" caption="Items by the shape of their correct/wrong pattern across budgets; click a bar to open a class.">
              <ClassChart grid={g} onQueue={onQueue} />
            </Panel>
            <Panel title="Iso-compute" caption="Configs with about the same frames × pixels (±5%): which items each one alone gets right.">
              <IsoCompute grid={g} />
            </Panel>
            {g.protocols.length > 0 && (
              <Panel
                wide
                title="Protocols"
                caption="Each other protocol (sampling policy, pipeline, subtitles) against the main grid on the budgets both have: the rates side by side, the items that left (−) or entered (+) each set — click to open them — and the share of the main grid's terminal regressions the variant answers correctly."
              >
                <ProtocolsPanel grid={g} onMark={openMark} />
              </Panel>
            )}
            <Panel
              title="Trajectory heatmap"
              caption="One column per config, green correct, red wrong; one row per item (small grids) or per correctness pattern with its number of items. Click a row to open its item or items."
            >
              <TrajectoryHeatmap grid={g} onItem={onItem} onMark={openMark} />
            </Panel>
            <Panel title="Confidence cascade" caption="Climb the budgets only while confidence is below τ: accuracy vs mean frames, against a fixed reference budget.">
              <CascadeChart grid={g} onQueue={onQueue} onMark={openMark} />
            </Panel>
          </div>
        </>
      )}
    </section>
  );
}

export function OverviewView({ onQueue, onItem, grids: gridInfo }: { onQueue: OpenQueue; onItem: OpenItem; grids: readonly GridInfo[] }) {
  // Responses change only with the project (imports, merges): annotations do not move these numbers.
  const { data, error } = useQuery('overview:get', {}, ['project']);
  const [model, setModel] = useState<string | null>(null);
  const [split, setSplit] = useState<string | null>(null);
  if (error && !data) return <p role="alert">Overview failed: {error}</p>;
  if (!data) return <p role="status">Computing the overview…</p>;
  const models = [...new Set(data.grids.map((g) => g.model))].sort();
  const splits = [...new Set(data.grids.map((g) => g.split))].sort();
  const grids = data.grids.filter((g) => (model === null || g.model === model) && (split === null || g.split === split));
  return (
    <div className="overview-view" data-ready="true">
      <div className="toolbar sticky" role="group" aria-label="Overview filters">
        <strong className="toolbar-title">Overview</strong>
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
        <MainProtocolPicker main={data.mainProtocol.name} available={data.mainProtocol.available} source={data.mainProtocol.source} />
        <span className="muted">
          {grids.length} of {data.grids.length} grids
        </span>
        <nav className="jump" aria-label="Jump to grid">
          {grids.map((g) => (
            <a
              key={`${g.model}/${g.split}`}
              href={`#/overview`}
              onClick={(e) => {
                e.preventDefault();
                document.getElementById(gridAnchor(g))?.scrollIntoView({ block: 'start' });
              }}
            >
              {g.model}
              {splits.length > 1 ? ` / ${g.split}` : ''}
            </a>
          ))}
        </nav>
      </div>
      <MatchedGrid table={data.matchedGrid} model={model} split={split} />
      {grids.map((g) => (
        <div key={`${g.model}/${g.split}`} id={gridAnchor(g)} className="card-anchor">
          <GridCard g={g} onQueue={onQueue} onItem={onItem} info={gridInfo.find((i) => i.model === g.model && i.split === g.split)} />
        </div>
      ))}
    </div>
  );
}

const gridAnchor = (g: OverviewGrid) => `grid-${g.model}-${g.split}`.replace(/[^A-Za-z0-9_-]+/g, '_');

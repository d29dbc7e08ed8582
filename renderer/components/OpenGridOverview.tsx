/**
 * The overview of an open-ended grid (docs/metrics.md §4): mean score and flows, the oracle gap,
 * the items that regress with budget and the terminal regressions (each opening exactly its
 * items), every transition's improved/regressed counts, each config's score distribution,
 * trajectory classes and the most frequent step patterns. Which score the grid holds (Token-F1,
 * a judge score) is named in the card's head.
 */
import type { ReactNode } from 'react';
import type { OverviewGrid, OverviewOpen } from '../../shared/api/overview';
import { SCORE_BINS } from '../../shared/api/overview';
import { binRange } from '../../shared/api/overview-marks';
import { CONTINUOUS_CLASSES } from '../../shared/engine/continuous';
import { ClassChart } from './charts/ClassChart';
import { signed, type OpenQueue } from './charts/FlowsChart';
import { OpenFlowsChart, openScoreFlow } from './charts/OpenFlowsChart';
import type { OpenMark } from './charts/open-mark';

const pct = (x: number) => (100 * x).toFixed(2);

function Section({ title, caption, children }: { title: string; caption: string; children: ReactNode }) {
  return (
    <section className="panel">
      <header className="panel-head">
        <h3>{title}</h3>
      </header>
      <p className="caption">{caption}</p>
      {children}
    </section>
  );
}

function OpenRates({ grid, o, onMark }: { grid: OverviewGrid; o: OverviewOpen; onMark: OpenMark }) {
  const where = `${grid.model} / ${grid.split}`;
  const entries = [
    {
      name: 'oracle gap',
      value: o.oracleGapPts.toFixed(2),
      unit: 'pts',
      sub: `oracle mean ${pct(o.oracleMean)}% vs best fixed ${o.bestFixed ?? '—'} ${o.bestFixed ? pct(o.mean[o.bestFixed] ?? 0) : '—'}%`,
      tone: 'info',
      count: null as number | null,
      go: null as (() => void) | null,
    },
    {
      name: 'regression with budget',
      value: pct(o.regressionRate),
      unit: '%',
      sub: `score drops by more than ε = ${o.eps} from a lower budget to a higher one`,
      tone: 'warn',
      count: o.counts.regressed,
      go: () => onMark({ kind: 'flag', flag: 'visuallyConfused' }),
    },
    {
      name: 'terminal regressions',
      value: pct(o.terminalRegressionRate),
      unit: '%',
      sub: `score at ${o.terminalConfig ?? '—'} below the item's best by more than ε`,
      tone: 'bad',
      count: o.counts.terminalRegressions,
      go: () => onMark({ kind: 'flag', flag: 'terminalRegression' }),
    },
  ];
  return (
    <dl className="kpis" aria-label={`Rates: ${where}`}>
      {entries.map((e) => (
        <div key={e.name} className={`kpi ${e.tone}`} data-rate={e.name}>
          <dt>{e.name}</dt>
          <dd>
            <span className="kpi-value" data-value={e.value}>
              {e.value}
              <small>{e.unit}</small>
            </span>
            <span className="kpi-sub">{e.sub}</span>
            {e.go && (
              <button type="button" className="kpi-go" data-count={e.count} aria-label={`${e.count} items → open the ${e.name} items (${where})`} onClick={e.go}>
                {e.count} items →
              </button>
            )}
          </dd>
        </div>
      ))}
      <div className="kpi kpi-n">
        <dt>items</dt>
        <dd>
          <span className="kpi-sub">
            {o.n} complete · {o.nExcluded} excluded · {o.configs.length} configs
          </span>
        </dd>
      </div>
    </dl>
  );
}

function OpenTransitions({ grid, o, onQueue }: { grid: OverviewGrid; o: OverviewOpen; onQueue: OpenQueue }) {
  const where = `${grid.model} / ${grid.split}`;
  return (
    <div className="table-scroll">
      <table className="numbers" aria-label={`Transitions: ${where}`}>
        <thead>
          <tr>
            <th className="text">transition</th>
            <th>improved</th>
            <th>regressed</th>
            <th>mean Δ pts</th>
          </tr>
        </thead>
        <tbody>
          {o.transitions.map((t) => (
            <tr key={`${t.from}>${t.to}`} data-transition={`${t.from}>${t.to}`}>
              <td className="text">
                {t.from} → {t.to}
              </td>
              <td>
                <button
                  type="button"
                  className="link good"
                  data-count={t.improved}
                  aria-label={`${t.improved}: open improved items of ${t.from} → ${t.to} (${where})`}
                  onClick={() => openScoreFlow(grid, onQueue, t, 'improved')}
                >
                  {t.improved > 0 ? `+${t.improved}` : '0'}
                </button>
              </td>
              <td>
                <button
                  type="button"
                  className="link bad"
                  data-count={t.regressed}
                  aria-label={`${t.regressed}: open regressed items of ${t.from} → ${t.to} (${where})`}
                  onClick={() => openScoreFlow(grid, onQueue, t, 'regressed')}
                >
                  {t.regressed > 0 ? `−${t.regressed}` : '0'}
                </button>
              </td>
              <td data-net={t.netPts} className={t.netPts < 0 ? 'neg' : t.netPts > 0 ? 'pos' : ''}>
                {signed(t.netPts)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Complete items per score bin and config, highest bin on top; each count opens its items. */
function Distribution({ grid, o, onMark }: { grid: OverviewGrid; o: OverviewOpen; onMark: OpenMark }) {
  const where = `${grid.model} / ${grid.split}`;
  const max = Math.max(1, ...o.distribution.flatMap((d) => d.bins));
  const bins = Array.from({ length: SCORE_BINS }, (_, i) => SCORE_BINS - 1 - i);
  return (
    <div className="table-scroll">
      <table className="numbers score-distribution" aria-label={`Score distribution: ${where}`}>
        <thead>
          <tr>
            <th className="text">score</th>
            {o.distribution.map((d) => (
              <th key={d.config}>{d.config}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {bins.map((b) => (
            <tr key={b}>
              <th className="text" scope="row">
                {binRange(b)}
              </th>
              {o.distribution.map((d) => {
                const n = d.bins[b] ?? 0;
                return (
                  <td key={d.config} style={{ background: n > 0 ? `rgba(43, 76, 155, ${(0.08 + 0.5 * (n / max)).toFixed(3)})` : undefined }}>
                    {n > 0 ? (
                      <button
                        type="button"
                        className="link"
                        data-count={n}
                        aria-label={`${n} items scoring ${binRange(b)} at ${d.config} (${where})`}
                        onClick={() => onMark({ kind: 'scoreBin', config: d.config, bin: b })}
                      >
                        {n}
                      </button>
                    ) : (
                      '·'
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
          <tr>
            <th className="text" scope="row">
              mean %
            </th>
            {o.distribution.map((d) => (
              <td key={d.config} data-mean={o.mean[d.config]}>
                {pct(o.mean[d.config] ?? 0)}
              </td>
            ))}
          </tr>
        </tbody>
      </table>
    </div>
  );
}

function Patterns({ grid, o, onMark }: { grid: OverviewGrid; o: OverviewOpen; onMark: OpenMark }) {
  const where = `${grid.model} / ${grid.split}`;
  return (
    <div className="table-scroll">
      <table className="numbers" aria-label={`Step patterns: ${where}`}>
        <thead>
          <tr>
            <th className="text">pattern ({o.configs.join(' → ')})</th>
            <th className="text">class</th>
            <th>items</th>
          </tr>
        </thead>
        <tbody>
          {o.patterns.map((p) => (
            <tr key={p.pattern} data-pattern={p.pattern}>
              <td className="text">
                <code>{p.pattern || '(one config)'}</code>
              </td>
              <td className="text">{p.cls ?? '—'}</td>
              <td>
                <button
                  type="button"
                  className="link"
                  data-count={p.n}
                  aria-label={`${p.n} items with pattern ${p.pattern} (${where})`}
                  onClick={() => onMark({ kind: 'pattern', pattern: p.pattern })}
                >
                  {p.n}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function OpenGridOverview({ grid, onQueue, onMark }: { grid: OverviewGrid; onQueue: OpenQueue; onMark: OpenMark }) {
  const o = grid.open;
  if (!o) return null;
  return (
    <>
      <div className="card-hero">
        <div className="hero-figure">
          <h3>Mean score and flows</h3>
          <p className="caption">
            Line: mean score per config. Bars: items whose score rose (green, above) or fell (red, below) by more than ε = {o.eps} between adjacent budgets — click to open the
            items.
          </p>
          <OpenFlowsChart grid={grid} open={o} onQueue={onQueue} />
        </div>
        <OpenRates grid={grid} o={o} onMark={onMark} />
      </div>
      <div className="card-grid">
        <Section title="Transitions" caption={`Every pair of configs: items improved / regressed by more than ε = ${o.eps} (click to open), and the change of the mean.`}>
          <OpenTransitions grid={grid} o={o} onQueue={onQueue} />
        </Section>
        <Section title="Score distribution" caption="Complete items per score band and config; click a count to open its items.">
          <Distribution grid={grid} o={o} onMark={onMark} />
        </Section>
        <Section title="Trajectory classes" caption="Items by the direction of their steps across budgets (steps within ε count as flat); click a bar to open a class.">
          <ClassChart grid={grid} onQueue={onQueue} classes={CONTINUOUS_CLASSES} />
        </Section>
        <Section title="Step patterns" caption="+ rose, − fell by more than ε, = within ε, per step along config order; click a count to open its items.">
          <Patterns grid={grid} o={o} onMark={onMark} />
        </Section>
      </div>
    </>
  );
}

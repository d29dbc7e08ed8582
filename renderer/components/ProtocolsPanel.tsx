/**
 * A grid's other protocols against its main grid (docs/metrics.md §6): for each variant the
 * rates side by side, how many items enter and leave the confused, terminal-regression and
 * text-overwrite sets (each count opens exactly those items in the queue), their Jaccard, and
 * the sampling recovery of the main grid's terminal regressions (the count opens the recovered
 * items).
 */
import { useState } from 'react';
import type { OverviewGrid, OverviewProtocol } from '../../shared/api/overview';
import { protocolLabel, type MembershipSet } from '../../shared/engine/protocols';
import { useClient } from '../api/use-client';
import type { OpenMark } from './charts/open-mark';

const pct = (x: number | null | undefined) => (x === null || x === undefined ? '—' : (100 * x).toFixed(2));
const SETS: [MembershipSet, string, 'visualConfusionRate' | 'terminalRegressionRate' | 'textOverwriteRate'][] = [
  ['confused', 'visually confused', 'visualConfusionRate'],
  ['terminalRegression', 'terminal regression', 'terminalRegressionRate'],
  ['textOverwritten', 'text overwritten', 'textOverwriteRate'],
];

function Moves({ p, set, label, onMark, where }: { p: OverviewProtocol; set: MembershipSet; label: string; onMark: OpenMark; where: string }) {
  const a = p.agreement;
  const x = a?.[set];
  if (!a || !x) return <td className="text">—</td>;
  const name = protocolLabel(p.protocol);
  return (
    <td className="text moves">
      <button
        type="button"
        aria-label={`${x.onlyMain} items ${label} in the main grid only, not under ${name} (${where})`}
        onClick={() => onMark({ kind: 'protocolMoved', protocol: p.protocol, set, side: 'onlyMain' })}
      >
        −{x.onlyMain}
      </button>{' '}
      <button
        type="button"
        aria-label={`${x.onlyVariant} items ${label} under ${name} only (${where})`}
        onClick={() => onMark({ kind: 'protocolMoved', protocol: p.protocol, set, side: 'onlyVariant' })}
      >
        +{x.onlyVariant}
      </button>{' '}
      <span className="muted">J {x.jaccard === null ? 'n/a' : x.jaccard.toFixed(3)}</span>
    </td>
  );
}

export function ProtocolsPanel({ grid, onMark }: { grid: OverviewGrid; onMark: OpenMark }) {
  const where = `${grid.model} / ${grid.split}`;
  if (grid.protocols.length === 0) return <p className="note">One protocol only: no sampling, pipeline or subtitle variant of this grid was imported.</p>;
  return (
    <div className="table-scroll">
      <table className="numbers protocols" aria-label={`Protocols: ${where}`}>
        <thead>
          <tr>
            <th className="text">protocol</th>
            <th className="text">budgets compared</th>
            <th>n</th>
            {SETS.map(([set, label]) => [
              <th key={`${set}-r`}>{label} % main / variant</th>,
              <th key={`${set}-m`} className="text">
                left / entered, Jaccard
              </th>,
            ])}
            <th className="text">sampling recovery</th>
          </tr>
        </thead>
        <tbody>
          {grid.protocols.map((p) => {
            const a = p.agreement;
            const r = p.recovery;
            return (
              <tr key={p.protocol} data-protocol={p.protocol}>
                <td className="text">
                  <code>{protocolLabel(p.protocol)}</code>
                  {p.differsIn.length > 0 && <span className="muted"> ({p.differsIn.join(', ')})</span>}
                </td>
                <td className="text">{a ? a.budgets.join(', ') : (p.agreementNote ?? '—')}</td>
                <td>{a ? a.nCommon : '—'}</td>
                {SETS.map(([set, label, rate]) => [
                  <td key={`${set}-r`}>{a ? `${pct(a.main[rate])} / ${pct(a.variant[rate])}` : '—'}</td>,
                  <Moves key={`${set}-m`} p={p} set={set} label={label} onMark={onMark} where={where} />,
                ])}
                <td className="text">
                  {r.recoveryRate === null ? (
                    <span className="muted">{r.note ?? '—'}</span>
                  ) : (
                    <button
                      type="button"
                      aria-label={`${r.recovered} of ${r.regressions} terminal regressions recovered by ${protocolLabel(p.protocol)} (${where})`}
                      onClick={() => onMark({ kind: 'recovered', protocol: p.protocol })}
                    >
                      {r.recovered} / {r.regressions} = {pct(r.recoveryRate)}% at {r.alternatives.join(', ')}
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** The main protocol of the project: every headline number is its grid's; choosing another recomputes them. */
export function MainProtocolPicker({ main, available, source }: { main: string; available: readonly string[]; source: 'setting' | 'default' }) {
  const client = useClient();
  const [error, setError] = useState<string | null>(null);
  if (available.length < 2) return null;
  return (
    <label title="Every headline number, the matched grid and the queue are computed on this protocol's grid alone">
      Main protocol
      <select
        aria-label="Main protocol"
        value={main}
        onChange={(e) => {
          const value = e.target.value === '' ? 'untagged' : e.target.value;
          void client.call('settings:set', { key: 'mainProtocol', value }).then((r) => setError(r.ok ? null : r.error.message));
        }}
      >
        {available.map((p) => (
          <option key={p} value={p}>
            {protocolLabel(p)}
          </option>
        ))}
      </select>
      <span className="muted">{source === 'setting' ? 'project setting' : 'default'}</span>
      {error && <span role="alert">{error}</span>}
    </label>
  );
}

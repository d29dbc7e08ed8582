import { useState } from 'react';
import { useQuery } from '../api/use-query';
import type { Codebook } from '../../shared/api/contract';
import type { AgreementReport, Conflict } from '../../shared/api/team-contract';
import { useClient } from '../api/use-client';
import { SyncPanel } from '../components/SyncPanel';
import type { Route } from '../route';

const fmt = (x: number | null): string => (x === null ? '—' : x.toFixed(3));
const pct = (x: number | null): string => (x === null ? '—' : `${(x * 100).toFixed(1)}%`);

/** Agreement per (model, split) and the conflicts queue with adjudication (docs/metrics.md §9). */
export function TeamView({ annotator, codebook, onNavigate }: { annotator: string | null; codebook: Codebook | null; onNavigate: (r: Route) => void }) {
  const agreement = useQuery('team:agreement', {});
  const conflictsQ = useQuery('team:conflicts', {});
  const report: AgreementReport | null = agreement.data;
  const conflicts: Conflict[] | null = conflictsQ.data?.conflicts ?? null;
  const [showResolved, setShowResolved] = useState(false);
  const error = agreement.error ?? conflictsQ.error;
  const refresh = () => {
    agreement.reload();
    conflictsQ.reload();
  };
  // Conflicts need two annotators on one item; with fewer, "they agree" would be a claim about nobody.
  const annotators = new Set(report?.groups.flatMap((g) => g.annotators) ?? []);
  const comparable = report?.groups.some((g) => g.annotators.length >= 2) ?? false;

  const label = (id: string | null) => (id === null ? 'none' : (codebook?.pathways.find((p) => p.id === id)?.label ?? id));
  const shown = (conflicts ?? []).filter((c) => showResolved || c.resolution === null);
  const open = (conflicts ?? []).filter((c) => c.resolution === null).length;

  return (
    <div className="team-view" data-testid="team-view">
      {error && <p role="alert">{error}</p>}
      <SyncPanel annotator={annotator} />
      <section aria-label="Agreement">
        <h2>Agreement between annotators</h2>
        <p className="caption">Per model and split: raw agreement and Cohen's κ for each pair of annotators (primary pathway and each pathway), Fleiss' κ for three or more.</p>
        {report === null && <p role="status">Loading…</p>}
        {report !== null && report.groups.length === 0 && <p>No labelled items yet.</p>}
        {report?.groups.map((g) => (
          <div key={`${g.model}|${g.split}`} className="agreement-group" role="region" aria-label={`Agreement ${g.model} ${g.split}`}>
            <h3>
              {g.model} · {g.split} — {g.annotators.length} annotator{g.annotators.length === 1 ? '' : 's'} ({g.annotators.join(', ')}), {g.nItems} labelled items
            </h3>
            {g.pairs.length === 0 && <p>Agreement needs two annotators on the same items.</p>}
            {g.pairs.map((p) => (
              <table key={`${p.a}|${p.b}`} className="agreement" aria-label={`Agreement ${g.model} ${g.split} ${p.a} × ${p.b}`}>
                <caption>
                  {p.a} × {p.b}: {p.nBoth} items labelled by both
                </caption>
                <thead>
                  <tr>
                    <th scope="col">pathway</th>
                    <th scope="col">items</th>
                    <th scope="col">raw agreement</th>
                    <th scope="col">Cohen κ</th>
                  </tr>
                </thead>
                <tbody>
                  <tr className="primary-row">
                    <th scope="row">primary pathway</th>
                    <td>{p.primary.n}</td>
                    <td>{pct(p.primary.rawAgreement)}</td>
                    <td aria-label={`Cohen kappa primary ${p.a} ${p.b}`}>{fmt(p.primary.kappa)}</td>
                  </tr>
                  {Object.entries(p.pathways).map(([id, c]) => (
                    <tr key={id}>
                      <th scope="row">{label(id)}</th>
                      <td>{c.n}</td>
                      <td>{pct(c.rawAgreement)}</td>
                      <td>{fmt(c.kappa)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ))}
            {g.fleiss && (
              <p aria-label={`Fleiss kappa ${g.model} ${g.split}`}>
                Fleiss κ (primary pathway, {g.annotators.length} annotators, {g.fleiss.nItems} items all labelled): <strong>{fmt(g.fleiss.kappa)}</strong>, observed agreement{' '}
                {pct(g.fleiss.observedAgreement)}
              </p>
            )}
          </div>
        ))}
      </section>
      <section aria-label="Conflicts">
        <h2>
          Conflicts{' '}
          <span className={`open-count${open === 0 ? ' zero' : ''}`} data-testid="open-conflicts">
            {open}
          </span>{' '}
          open
        </h2>
        <p className="caption">Items where annotators chose different primary pathways. Resolving records you as adjudicator; everyone's original labels are kept.</p>
        <label>
          <input type="checkbox" checked={showResolved} onChange={(e) => setShowResolved(e.target.checked)} /> show resolved
        </label>
        {shown.length === 0 && conflicts !== null && report !== null && !comparable && (
          <p>
            No conflicts to show: conflicts need two annotators on the same item, and{' '}
            {annotators.size === 0
              ? 'nobody has labelled an item yet'
              : annotators.size === 1
                ? `only ${[...annotators][0]} has labelled items so far`
                : `${[...annotators].join(', ')} have labelled items, but no two of them in the same grid yet`}
            .
          </p>
        )}
        {shown.length === 0 && conflicts !== null && comparable && <p>No {showResolved ? '' : 'open '}conflicts: annotators agree on every primary pathway.</p>}
        <ul className="conflicts" aria-label="Conflicts queue">
          {shown.map((c) => (
            <ConflictRow
              key={`${c.model}|${c.split}|${c.sampleId}`}
              conflict={c}
              annotator={annotator}
              codebook={codebook}
              label={label}
              onNavigate={onNavigate}
              onResolved={refresh}
            />
          ))}
        </ul>
      </section>
    </div>
  );
}

function ConflictRow({
  conflict: c,
  annotator,
  codebook,
  label,
  onNavigate,
  onResolved,
}: {
  conflict: Conflict;
  annotator: string | null;
  codebook: Codebook | null;
  label: (id: string | null) => string;
  onNavigate: (r: Route) => void;
  onResolved: () => void;
}) {
  const client = useClient();
  const candidates = [...new Set([...Object.values(c.primaries), ...(codebook?.pathways.map((p) => p.id) ?? [])])];
  const [primary, setPrimary] = useState(c.resolution?.primary ?? Object.values(c.primaries)[0] ?? '');
  const [note, setNote] = useState(c.resolution?.note ?? '');
  const [error, setError] = useState<string | null>(null);
  const name = `${c.model} ${c.split} ${c.sampleId}`;
  const resolve = async () => {
    if (!annotator) return setError('set your name first: the adjudicator is recorded');
    const r = await client.call('team:adjudicate', { model: c.model, split: c.split, sampleId: c.sampleId, adjudicator: annotator, primary: primary || null, pathways: [], note });
    if (!r.ok) return setError(r.error.message);
    onResolved();
  };
  return (
    <li className="conflict" aria-label={`Conflict ${name}`}>
      <button type="button" className="link" onClick={() => onNavigate({ view: 'item', item: { model: c.model, split: c.split, sampleId: c.sampleId } })}>
        {name}
      </button>{' '}
      {Object.entries(c.primaries).map(([who, p]) => (
        <span key={who} className="conflict-label">
          {who}: <strong>{label(p)}</strong>{' '}
        </span>
      ))}
      {c.resolution ? (
        <span className="resolution" aria-label={`Resolution ${name}`}>
          resolved by {c.resolution.adjudicator}: <strong>{label(c.resolution.primary)}</strong>
          {c.resolution.note && ` — ${c.resolution.note}`}
        </span>
      ) : (
        <span className="adjudicate">
          <select aria-label={`Resolved primary for ${name}`} value={primary} onChange={(e) => setPrimary(e.target.value)}>
            {candidates.map((id) => (
              <option key={id} value={id}>
                {label(id)}
              </option>
            ))}
          </select>{' '}
          <input aria-label={`Adjudication note for ${name}`} placeholder="why" value={note} onChange={(e) => setNote(e.target.value)} />{' '}
          <button type="button" onClick={() => void resolve()} aria-label={`Resolve ${name}`}>
            Resolve
          </button>
        </span>
      )}
      {error && <span role="alert"> {error}</span>}
    </li>
  );
}

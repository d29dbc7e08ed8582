import { useEffect, useState } from 'react';
import type { Codebook, ItemRef } from '../../shared/api/contract';
import type { Res } from '../../shared/api/contract';
import { useClient } from '../api/use-client';

/**
 * Every annotator's labels of the item side by side, the adjudicated resolution if any, and
 * which labels were made under an older codebook version than the current one.
 */
export function AnnotatorsPanel({ item, annotator, codebook, refreshKey }: { item: ItemRef; annotator: string; codebook: Codebook | null; refreshKey: string }) {
  const client = useClient();
  const [team, setTeam] = useState<Res<'team:item'> | null>(null);
  useEffect(() => {
    let live = true;
    const load = () => void client.call('team:item', item).then((r) => live && r.ok && setTeam(r.value));
    load();
    const off = client.on('data:changed', (p) => {
      if (p.item === null || (p.item.model === item.model && p.item.split === item.split && p.item.sampleId === item.sampleId)) load();
    });
    return () => {
      live = false;
      off();
    };
  }, [client, item, refreshKey]);
  if (!team) return null;
  const label = (id: string | null) => (id === null ? '—' : (codebook?.pathways.find((p) => p.id === id)?.label ?? id));
  const mine = team.labels.find((l) => l.annotator === annotator);
  const current = team.codebookVersion;
  const stale = mine && mine.codebookVersion !== null && current !== null && mine.codebookVersion !== current;
  return (
    <section className="annotators" aria-label="Annotators">
      {stale && (
        <p role="note" className="codebook-stale" aria-label="Codebook version notice">
          Your labels were made under codebook version {mine.codebookVersion}; the current version is {current}.
        </p>
      )}
      {team.resolution && (
        <p className="resolution" aria-label="Resolved label">
          Resolved by {team.resolution.adjudicator}: <strong>{label(team.resolution.primary)}</strong>
          {team.resolution.pathways.length > 0 && ` (${team.resolution.pathways.map(label).join(', ')})`}
          {team.resolution.note && ` — ${team.resolution.note}`}
        </p>
      )}
      {team.labels.length > 1 && (
        <div className="table-scroll">
          <table aria-label="Labels by annotator">
            <thead>
              <tr>
                <th scope="col">annotator</th>
                <th scope="col">status</th>
                <th scope="col">primary</th>
                <th scope="col">pathways</th>
                <th scope="col">conf</th>
                <th scope="col">spans</th>
                <th scope="col">codebook</th>
                <th scope="col">notes</th>
              </tr>
            </thead>
            <tbody>
              {team.labels.map((l) => (
                <tr key={l.annotator} aria-label={`Labels of ${l.annotator}`} className={l.annotator === annotator ? 'mine' : ''}>
                  <th scope="row">{l.annotator}</th>
                  <td>{l.status}</td>
                  <td>{label(l.primaryPathway)}</td>
                  <td>{l.pathways.map(label).join(', ') || '—'}</td>
                  <td>{l.confidence ?? '—'}</td>
                  <td>{l.spans}</td>
                  <td>
                    {l.codebookVersion === null ? '—' : `v${l.codebookVersion}`}
                    {l.codebookVersion !== null && current !== null && l.codebookVersion !== current && <span className="stale"> (current v{current})</span>}
                  </td>
                  <td>{l.notes}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

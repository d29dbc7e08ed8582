import { useState } from 'react';
import type { MergeReport } from '../../shared/api/team-contract';
import { useClient } from '../api/use-client';

/** Project view: merge another annotator's exported release (folder/zip) or annotations/ folder. */
export function MergePanel({ onMerged }: { onMerged: () => void }) {
  const client = useClient();
  const [path, setPath] = useState('');
  const [busy, setBusy] = useState(false);
  const [report, setReport] = useState<MergeReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const merge = async () => {
    setBusy(true);
    setError(null);
    const r = await client.call('team:merge', { path: path.trim() });
    setBusy(false);
    if (!r.ok) return setError(r.error.message);
    setReport(r.value);
    onMerged();
  };
  return (
    <section className="merge" aria-label="Merge annotations">
      <h3>Merge annotations…</h3>
      <p>Another annotator's exported release (folder or .zip) or its annotations/ folder. Nothing already here changes; merging twice adds nothing.</p>
      <input className="path" aria-label="Bundle path" placeholder="/path/to/release or annotations/" value={path} onChange={(e) => setPath(e.target.value)} />{' '}
      <button type="button" disabled={busy || path.trim() === ''} onClick={() => void merge()}>
        Merge annotations
      </button>
      {error && <p role="alert">Merge failed: {error}</p>}
      {report && (
        <p role="status" aria-label="Merge result">
          Merged {report.annotators.join(', ') || 'nothing'}: {report.added} added, {report.skipped} already present; {report.openConflicts} open conflicts
          {report.codebook && !report.codebook.matchesProject && ` (the bundle's codebook v${report.codebook.version} differs from this project's)`}
        </p>
      )}
    </section>
  );
}

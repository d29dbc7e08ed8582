import { useEffect, useState } from 'react';
import { questionSource } from '../../shared/api/question-source';
import { useClient } from '../api/use-client';
import { PathField } from './PathField';

let seq = 0;

/**
 * A split without question text (a release exported without it): says which file brings it
 * (shared/api/question-source.ts) and imports that file in place — the same import:run as the
 * Project view's form, with the split option that files its rows under this split. The views
 * refresh by themselves when the import ends (data:changed).
 */
export function QuestionImport({ split, readOnly, compact = false }: { split: string; readOnly: boolean; compact?: boolean }) {
  const client = useClient();
  const src = questionSource(split);
  const [open, setOpen] = useState(!compact);
  const [path, setPath] = useState('');
  const [job, setJob] = useState<{ id: string; done: number; total: number; message: string | null } | null>(null);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);

  useEffect(
    () =>
      client.on('job:progress', (p) => {
        setJob((j) => (j && p.jobId === j.id ? { ...j, done: p.done, total: p.total, message: p.message } : j));
      }),
    [client],
  );

  const run = async () => {
    const id = `questions-${Date.now().toString(36)}-${(seq++).toString(36)}`;
    setResult(null);
    setJob({ id, done: 0, total: 1, message: null });
    const r = await client.call('import:run', { jobId: id, paths: [path.trim()], ...(src.split !== undefined && { split: src.split }) });
    setJob(null);
    if (!r.ok) return setResult({ ok: false, text: r.error.message });
    const s = r.value.summary;
    setResult({ ok: true, text: `imported ${r.value.files.map((f) => f.format).join(', ')}: ${s.itemsUpdated} items given their text, ${s.itemsAdded} items added` });
  };

  return (
    <div className="question-import" role="group" aria-label={`Question text of ${split}`}>
      <p>
        The question text of <strong>{split}</strong> is not in this project (a release is exported without it). It comes from {src.file}
        {src.split !== undefined ? ` (imported with split ${src.split})` : ''}.{' '}
        {!open && (
          <button type="button" onClick={() => setOpen(true)} disabled={readOnly}>
            Import it…
          </button>
        )}
      </p>
      {open && (
        <div className="row">
          <PathField label={`Question file for ${split}`} value={path} onChange={setPath} kind="file" placeholder="e.g. ~/data/videomme/test-00000-of-00001.parquet" />
          <button type="button" disabled={readOnly || path.trim() === '' || job !== null} onClick={() => void run()}>
            Import question file
          </button>
        </div>
      )}
      {job && (
        <p role="status">
          importing… <progress aria-label={`Progress of the question import for ${split}`} max={Math.max(1, job.total)} value={job.done} /> {job.message}
        </p>
      )}
      {result && (
        <p role={result.ok ? 'status' : 'alert'} aria-label="Question import result">
          {result.text}
        </p>
      )}
    </div>
  );
}

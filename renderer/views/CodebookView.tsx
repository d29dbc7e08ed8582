import { useEffect, useMemo, useState } from 'react';
import type { Codebook } from '../../shared/api/contract';
import { toContractCodebook } from '../../shared/api/codebook';
import { codebookSchema } from '../../shared/domain/annotations';
import { codebookProblems } from '../../shared/team/codebook-rules';
import { useClient } from '../api/use-client';
import { APP_SHORTCUTS } from '../shortcuts';

type Row = Codebook['pathways'][number] & { isNew?: boolean };

/** The app's single-key shortcuts: a pathway key may use none of them. */
const RESERVED = APP_SHORTCUTS.map((s) => s.key).filter((k) => [...k].length === 1);

/** A codebook JSON file as the release writes it (applies_to may be a string), in the contract's shape. */
export function parseCodebookJson(text: string): { codebook: Codebook } | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { error: `not JSON: ${(e as Error).message}` };
  }
  const r = codebookSchema.safeParse(json);
  if (!r.success) return { error: r.error.issues.map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`).join('; ') };
  const cb = r.data;
  return {
    codebook: toContractCodebook(cb),
  };
}

export function CodebookView({ onSaved }: { onSaved: (cb: Codebook) => void }) {
  const client = useClient();
  const [current, setCurrent] = useState<Codebook | null>(null);
  const [draft, setDraft] = useState<Row[]>([]);
  const [draftId, setDraftId] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = (cb: Codebook) => {
    setCurrent(cb);
    setDraft(cb.pathways.map((p) => ({ ...p })));
    setDraftId(cb.id);
  };
  useEffect(() => {
    void client.call('codebook:get', {}).then((r) => (r.ok ? load(r.value) : setError(r.error.message)));
  }, [client]);

  const candidate: Codebook | null = useMemo(
    () => current && { id: draftId, version: current.version, pathways: draft.map(({ isNew: _n, ...p }) => p) },
    [current, draftId, draft],
  );
  const problems = useMemo(() => (candidate ? codebookProblems(candidate, RESERVED) : []), [candidate]);
  const changed = candidate !== null && current !== null && JSON.stringify({ ...candidate, version: 0 }) !== JSON.stringify({ ...current, version: 0 });

  const patch = (i: number, p: Partial<Row>) => setDraft((d) => d.map((r, k) => (k === i ? { ...r, ...p } : r)));

  const save = async () => {
    if (!candidate) return;
    setMessage(null);
    setError(null);
    const r = await client.call('codebook:set', { codebook: candidate });
    if (!r.ok) return setError(r.error.message);
    load(r.value);
    onSaved(r.value);
    setMessage(r.value.version === current?.version ? 'No change to save' : `Saved as version ${r.value.version}`);
  };

  const exportJson = () => {
    if (!current) return;
    const blob = new Blob([`${JSON.stringify(current, null, 2)}\n`], { type: 'application/json' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `codebook-${current.id}-v${current.version}.json`;
    a.click();
    URL.revokeObjectURL(a.href);
  };

  const importFile = async (file: File) => {
    setMessage(null);
    const r = parseCodebookJson(await file.text());
    if ('error' in r) return setError(`${file.name}: ${r.error}`);
    setError(null);
    setDraft(r.codebook.pathways.map((p) => ({ ...p, isNew: !current?.pathways.some((c) => c.id === p.id) })));
    setDraftId(r.codebook.id);
    setMessage(`Loaded ${file.name} (${r.codebook.pathways.length} pathways): review, then Save`);
  };

  if (!current) return error ? <p role="alert">{error}</p> : <p role="status">Loading codebook…</p>;
  return (
    <div className="codebook-view" data-testid="codebook-view">
      <h2>
        Codebook <code>{current.id}</code> · <span data-testid="codebook-version">version {current.version}</span>
      </h2>
      <p className="intro">
        Ids stay fixed once used; changing a label, description, key or scope and saving makes a new version. Existing annotations keep the version they were made under.
      </p>
      <div className="row">
        <label>
          Codebook id <input aria-label="Codebook id" value={draftId} onChange={(e) => setDraftId(e.target.value)} />
        </label>
        <button type="button" onClick={exportJson}>
          Export JSON
        </button>
        <label>
          Import JSON{' '}
          <input type="file" accept=".json,application/json" aria-label="Import codebook JSON" onChange={(e) => e.target.files?.[0] && void importFile(e.target.files[0])} />
        </label>
      </div>
      <table className="codebook-table" aria-label="Pathways">
        <thead>
          <tr>
            <th scope="col">id</th>
            <th scope="col">label</th>
            <th scope="col">description</th>
            <th scope="col">key</th>
            <th scope="col">applies to</th>
            <th scope="col" />
          </tr>
        </thead>
        <tbody>
          {draft.map((p, i) => (
            <tr key={i}>
              <td>{p.isNew ? <input aria-label={`Id of pathway ${i + 1}`} value={p.id} onChange={(e) => patch(i, { id: e.target.value })} /> : <code>{p.id}</code>}</td>
              <td>
                <input aria-label={`Label of ${p.id || `pathway ${i + 1}`}`} value={p.label} onChange={(e) => patch(i, { label: e.target.value })} />
              </td>
              <td>
                <textarea
                  aria-label={`Description of ${p.id || `pathway ${i + 1}`}`}
                  rows={2}
                  cols={50}
                  value={p.description}
                  onChange={(e) => patch(i, { description: e.target.value })}
                />
              </td>
              <td>
                <input
                  aria-label={`Key of ${p.id || `pathway ${i + 1}`}`}
                  size={2}
                  maxLength={1}
                  value={p.shortcut ?? ''}
                  onChange={(e) => patch(i, { shortcut: e.target.value === '' ? null : e.target.value })}
                />
              </td>
              <td>
                <input
                  aria-label={`Applies to of ${p.id || `pathway ${i + 1}`}`}
                  value={p.applies_to.join(', ')}
                  onChange={(e) =>
                    patch(i, {
                      applies_to: e.target.value
                        .split(',')
                        .map((x) => x.trim())
                        .filter((x) => x !== ''),
                    })
                  }
                />
              </td>
              <td>
                <button type="button" aria-label={`Remove ${p.id || `pathway ${i + 1}`}`} onClick={() => setDraft((d) => d.filter((_, k) => k !== i))}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="row">
        <button type="button" onClick={() => setDraft((d) => [...d, { id: '', label: '', description: '', applies_to: ['mcqa', 'open'], shortcut: null, isNew: true }])}>
          Add pathway
        </button>
        <button type="button" disabled={!changed || problems.length > 0} onClick={() => void save()}>
          Save codebook
        </button>
        <button type="button" disabled={!changed} onClick={() => load(current)}>
          Discard changes
        </button>
      </div>
      {problems.length > 0 && (
        <ul role="alert" aria-label="Codebook problems">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      {error && <p role="alert">{error}</p>}
      {message && <p role="status">{message}</p>}
    </div>
  );
}

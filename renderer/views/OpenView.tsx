import { useEffect, useState } from 'react';
import type { ImportFileSummary, ImportSummary, ProjectInfo } from '../../shared/api/contract';
import { IMPORT_OPTIONS, ImportOptionValues, type ImportOptionKey } from '../../shared/api/import-options';
import { useClient } from '../api/use-client';
import { importSummaryText } from '../../shared/api/import-summary-text';
import { MergePanel } from '../components/MergePanel';
import { PathField } from '../components/PathField';
import { QuestionImport } from '../components/QuestionImport';

interface Job {
  id: string;
  kind: 'import' | 'export';
  label: string;
  done: number;
  total: number;
  message: string | null;
  state: 'running' | 'ok' | 'error' | 'cancelled';
  /** The import's paths, in the order it reads them (per-file progress). */
  paths: string[];
  files: ImportFileSummary[];
  summary: ImportSummary | null;
  error: string | null;
  outDir?: string;
}

let jobCounter = 0;
const newJobId = (kind: string) => `${kind}-${Date.now().toString(36)}-${(jobCounter++).toString(36)}`;

export function OpenView({ project, onProject, onImported }: { project: ProjectInfo | null; onProject: (p: ProjectInfo) => void; onImported: () => void }) {
  const client = useClient();
  const [path, setPath] = useState(project?.path ?? '');
  const [recent, setRecent] = useState<string[]>([]);
  const [openError, setOpenError] = useState<string | null>(null);
  const [importPaths, setImportPaths] = useState('');
  // One field per option of `flipbook import` (shared/api/import-options.ts): the same options, the same code path.
  const [options, setOptions] = useState<Partial<Record<ImportOptionKey, string>>>({});
  const [jobs, setJobs] = useState<Job[]>([]);
  const [mediaRoot, setMediaRoot] = useState(project?.mediaRoot ?? '');
  const [mediaMsg, setMediaMsg] = useState<string | null>(null);
  const [outDir, setOutDir] = useState('');
  const [includeText, setIncludeText] = useState(false);
  const [dragOver, setDragOver] = useState(false);

  useEffect(() => {
    void client.call('recent:list', {}).then((r) => r.ok && setRecent(r.value));
  }, [client]);
  useEffect(() => setMediaRoot(project?.mediaRoot ?? ''), [project?.mediaRoot]);

  useEffect(
    () =>
      client.on('job:progress', (p) => {
        // A job that has answered is finished: a progress event that arrives after its answer
        // (events and answers travel apart) must not move its bar back.
        setJobs((js) => js.map((j) => (j.id === p.jobId && j.state === 'running' ? { ...j, done: p.done, total: p.total, message: p.message } : j)));
      }),
    [client],
  );

  const open = async (create: boolean, p = path) => {
    setOpenError(null);
    const r = await client.call('project:open', { path: p, create });
    if (r.ok) onProject(r.value);
    else setOpenError(r.error.message);
  };

  const runImport = async (paths: string[]) => {
    if (paths.length === 0) return;
    const id = newJobId('import');
    const job: Job = { id, kind: 'import', label: paths.join(', '), done: 0, total: paths.length, message: null, state: 'running', paths, files: [], summary: null, error: null };
    setJobs((js) => [job, ...js]);
    const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined && v.trim() !== ''));
    const parsed = ImportOptionValues.safeParse(given);
    const r = parsed.success
      ? await client.call('import:run', { jobId: id, paths, ...parsed.data })
      : ({
          ok: false,
          error: { message: parsed.error.issues.map((i) => `${IMPORT_OPTIONS.find((o) => o.key === i.path[0])?.label ?? String(i.path[0])}: ${i.message}`).join('; ') },
        } as const);
    setJobs((js) =>
      js.map((j) =>
        j.id === id
          ? r.ok
            ? { ...j, state: 'ok', files: r.value.files, summary: r.value.summary, done: j.total, message: null }
            : 'code' in r.error && r.error.code === 'cancelled'
              ? { ...j, state: 'cancelled', message: 'nothing was imported' }
              : { ...j, state: 'error', error: r.error.message }
          : j,
      ),
    );
    // Refused or not, the views re-read the project (a refused import changed nothing).
    onImported();
  };

  const runExport = async () => {
    const id = newJobId('export');
    setJobs((js) => [{ id, kind: 'export', label: outDir, done: 0, total: 1, message: null, state: 'running', paths: [], files: [], summary: null, error: null }, ...js]);
    const r = await client.call('export:run', { jobId: id, outDir, includeText });
    setJobs((js) =>
      js.map((j) =>
        j.id === id
          ? r.ok
            ? { ...j, state: 'ok', done: 1, outDir: r.value.outDir, message: `${r.value.files.length} files written` }
            : r.error.code === 'cancelled'
              ? { ...j, state: 'cancelled', message: null }
              : { ...j, state: 'error', error: r.error.message }
          : j,
      ),
    );
  };

  const setRoot = async () => {
    const r = await client.call('settings:set', { key: 'mediaRoot', value: mediaRoot.trim() === '' ? null : mediaRoot.trim() });
    if (r.ok) {
      onProject(r.value);
      setMediaMsg(`${r.value.itemsWithVideo} of ${r.value.nItems} items have video`);
    } else setMediaMsg(r.error.message);
  };

  return (
    <div className="open-view">
      <section aria-labelledby="h-project">
        <h2 id="h-project">Project</h2>
        {project && (
          <p aria-label="Project summary">
            {project.path} — {project.nItems} items, models {project.models.join(', ') || '—'}, splits {project.splits.join(', ') || '—'}; {project.itemsWithVideo} of{' '}
            {project.nItems} items have video
            {project.readOnly && <strong> — read-only: {project.readOnlyReason}</strong>}
          </p>
        )}
        {project?.withoutQuestion.map((g) => (
          <QuestionImport key={g.split} split={g.split} readOnly={project.readOnly} compact />
        ))}
        <div className="row">
          <span className="field">
            Project file
            <PathField
              label="Project file"
              value={path}
              onChange={setPath}
              kind="file"
              pick="open-project"
              placeholder="e.g. ~/audits/videomme.flipbook"
              onChosen={(ps) => ps[0] && void open(false, ps[0])}
            />
          </span>
          <button type="button" onClick={() => void open(false)} disabled={path.trim() === ''}>
            Open project
          </button>
          <button type="button" onClick={() => void open(true)} disabled={path.trim() === ''}>
            Create project
          </button>
        </div>
        {openError && <p role="alert">{openError}</p>}
        {recent.length > 0 && (
          <ul aria-label="Recent projects">
            {recent.map((r) => (
              <li key={r}>
                <button type="button" aria-label={`Open recent ${r}`} onClick={() => void open(false, r)}>
                  {r}
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>

      {project && (
        <section
          aria-labelledby="h-import"
          className={dragOver ? 'drop-target over' : 'drop-target'}
          onDragOver={(e) => {
            e.preventDefault();
            setDragOver(true);
          }}
          onDragLeave={() => setDragOver(false)}
          onDrop={(e) => {
            e.preventDefault();
            setDragOver(false);
            // Electron exposes the dropped file's path; browsers do not (use the path field there).
            const paths = [...e.dataTransfer.files].map((f) => (f as File & { path?: string }).path ?? '').filter((p) => p !== '');
            void runImport(paths);
          }}
        >
          <h2 id="h-import">Import results or metadata</h2>
          <p>Drop files here, browse, or enter paths (one per line).</p>
          <PathField
            label="Files to import"
            value={importPaths}
            onChange={setImportPaths}
            kind="files"
            pick="import"
            multiline
            placeholder="e.g. ~/results/20250301_samples_videomme.jsonl (one path per line)"
          />
          <div className="row import-options" role="group" aria-label="Import options">
            {IMPORT_OPTIONS.map((o) => (
              <label key={o.key} title={o.help}>
                {o.label}
                {o.kind === 'choice' ? (
                  <select aria-label={`Import ${o.label.toLowerCase()}`} value={options[o.key] ?? ''} onChange={(e) => setOptions((x) => ({ ...x, [o.key]: e.target.value }))}>
                    <option value="">{o.key === 'format' ? 'auto-detect' : 'none'}</option>
                    {o.choices?.map((c) => (
                      <option key={c} value={c}>
                        {c}
                      </option>
                    ))}
                  </select>
                ) : (
                  <input
                    aria-label={`Import ${o.label.toLowerCase()}`}
                    aria-describedby={`import-help-${o.key}`}
                    value={options[o.key] ?? ''}
                    className={o.kind === 'path' ? 'path' : undefined}
                    placeholder={o.example ? `e.g. ${o.example}` : o.kind === 'path' ? 'a file path' : ''}
                    onChange={(e) => setOptions((x) => ({ ...x, [o.key]: e.target.value }))}
                  />
                )}
                <span id={`import-help-${o.key}`} className="sr-only">
                  {o.help}
                </span>
              </label>
            ))}
          </div>
          <div className="row">
            <button
              type="button"
              onClick={() =>
                void runImport(
                  importPaths
                    .split('\n')
                    .map((s) => s.trim())
                    .filter((s) => s !== ''),
                )
              }
              disabled={project.readOnly}
            >
              Import
            </button>
          </div>
        </section>
      )}

      {jobs.length > 0 && (
        <section aria-labelledby="h-jobs">
          <h2 id="h-jobs">Jobs</h2>
          <ul className="jobs" aria-label="Jobs">
            {jobs.map((j) => (
              <li key={j.id} aria-label={`${j.kind} job ${j.label}`} data-state={j.state}>
                <div>
                  {j.kind} {j.label}: <strong>{j.state === 'running' ? 'running' : j.state === 'ok' ? 'done' : j.state === 'cancelled' ? 'cancelled' : 'failed'}</strong>
                  {j.message && <span> — {j.message}</span>}
                  {j.state === 'running' && (
                    // The job runs in a worker thread; cancelling stops it before anything is committed (job:cancel).
                    <button type="button" onClick={() => void client.call('job:cancel', { jobId: j.id })}>
                      Cancel
                    </button>
                  )}
                </div>
                <progress aria-label={`Progress of ${j.kind} ${j.label}`} max={Math.max(1, j.total)} value={j.state === 'ok' ? Math.max(1, j.total) : j.done} />
                {j.kind === 'import' && j.paths.length > 1 && (
                  // Per file: the import reads them in order, then applies all in one transaction.
                  <ol className="import-files" aria-label={`Files of import ${j.label}`}>
                    {j.paths.map((f, i) => {
                      const st =
                        j.state === 'ok'
                          ? 'imported'
                          : j.state !== 'running'
                            ? j.state === 'error'
                              ? 'not imported'
                              : 'cancelled'
                            : i < j.done
                              ? 'read'
                              : i === j.done
                                ? 'reading'
                                : 'waiting';
                      return (
                        <li key={f} data-state={st}>
                          <code>{f}</code> — {st}
                        </li>
                      );
                    })}
                  </ol>
                )}
                {j.error && <p role="alert">{j.error}</p>}
                {j.outDir && <p>Written to {j.outDir}</p>}
                {j.files.map((f) => (
                  <div key={f.path} className="import-file">
                    <code>{f.path}</code>: format <strong>{f.format}</strong>
                  </div>
                ))}
                {j.summary && (
                  <div className="import-summary" aria-label="Import summary">
                    {importSummaryText(j.summary)} · models {j.summary.models.join(', ') || '—'} · splits {j.summary.splits.join(', ') || '—'}
                    {j.summary.configs.length > 0 && <> · configs {j.summary.configs.join(', ')}</>}
                    {j.summary.groundTruth && (
                      <span>
                        {' '}
                        · answers{' '}
                        {Object.entries(j.summary.groundTruth)
                          .map(([split, c]) => `${split} ${c.answered} of ${c.items}`)
                          .join('; ')}
                      </span>
                    )}
                    {j.summary.matchedGrid && <span> · matched grid {j.summary.matchedGrid.join(', ')}</span>}
                    {j.summary.annotationEventsAdded > 0 && <span> · {j.summary.annotationEventsAdded} annotation events</span>}
                  </div>
                )}
                {j.summary && j.summary.warnings.length > 0 && (
                  <ul aria-label="Warnings">
                    {j.summary.warnings.map((w, i) => (
                      <li key={i}>{w}</li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}

      {project && (
        <section aria-labelledby="h-media">
          <h2 id="h-media">Media root</h2>
          <div className="row">
            <span className="field">
              Media folder
              <PathField
                label="Media root"
                value={mediaRoot}
                onChange={setMediaRoot}
                kind="folder"
                pick="media-root"
                placeholder="the folder that holds the videos, e.g. ~/data/videomme/videos"
              />
            </span>
            <button type="button" onClick={() => void setRoot()} disabled={project.readOnly}>
              Set media root
            </button>
          </div>
          <p aria-label="Video coverage">{mediaMsg ?? `${project.itemsWithVideo} of ${project.nItems} items have video`}</p>
        </section>
      )}

      {project && (
        <section aria-labelledby="h-export">
          <h2 id="h-export">Export release</h2>
          <div className="row">
            <span className="field">
              Output folder
              <PathField label="Export folder" value={outDir} onChange={setOutDir} kind="folder" pick="export-dir" placeholder="a new folder, e.g. ~/releases/audit-2025-03" />
            </span>
            <label>
              <input type="checkbox" aria-label="Include benchmark text" checked={includeText} onChange={(e) => setIncludeText(e.target.checked)} /> include benchmark text (check
              the benchmark's licence)
            </label>
            <button type="button" onClick={() => void runExport()} disabled={outDir.trim() === ''}>
              Export
            </button>
          </div>
        </section>
      )}
      {project && <MergePanel onMerged={onImported} />}
    </div>
  );
}

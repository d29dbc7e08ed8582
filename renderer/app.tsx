import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { FlipbookClient } from '../shared/api/client';
import type { Codebook, ProjectInfo } from '../shared/api/contract';
import { EMPTY_FILTER, rowKey, type QueueFilter, type QueueSort } from '../shared/api/queue-filter';
import { ClientContext } from './api/use-client';
import { useNeighbours } from './api/use-queue-pages';
import { loadAnnotator, saveAnnotator } from './api/annotator';
import { parseRoute, routeHash, type Route } from './route';
import { OpenView } from './views/OpenView';
import { QueueView } from './views/QueueView';
import { SavedViewsBar, hiddenColumnsCss } from './views/SavedViewsBar';
import { QUEUE_COLUMNS, type QueueColumn } from '../shared/api/overview';
import { AnnotatorPrompt } from './components/AnnotatorPrompt';
import { ShortcutsDialog } from './components/ShortcutsDialog';
import { allShortcuts } from './shortcuts';
import { escape, handleKey, runAction, useShortcuts } from './keymap';

// The views behind the queue load on first use (docs/performance.md "The renderer's first
// chunk"): the charts (ECharts) and the player (video.js) are most of the bundle, and the app
// opens on the project or the queue.
const ItemView = lazy(() => import('./views/ItemView').then((m) => ({ default: m.ItemView })));
const OverviewView = lazy(() => import('./views/OverviewView').then((m) => ({ default: m.OverviewView })));
const CodebookView = lazy(() => import('./views/CodebookView').then((m) => ({ default: m.CodebookView })));
const TeamView = lazy(() => import('./views/TeamView').then((m) => ({ default: m.TeamView })));

/**
 * UI state that belongs to a project — the queue's filter, sort and columns — is kept per
 * project (keyed by its path), never shared: a filter set in one project must not hide the
 * rows of another while the controls there say "any".
 */
interface ProjectUi {
  /** The project this state belongs to (null: none open). */
  key: string | null;
  filter: QueueFilter;
  sort: QueueSort;
  columns: QueueColumn[];
}
const UI_PREFIX = 'flipbook.project-ui:';
const DEFAULT_SORT: QueueSort = { key: 'default', desc: false };

function loadUi(key: string | null): ProjectUi {
  const fresh: ProjectUi = { key, filter: EMPTY_FILTER, sort: DEFAULT_SORT, columns: [...QUEUE_COLUMNS] };
  if (key === null) return fresh;
  try {
    const s = window.localStorage.getItem(UI_PREFIX + key);
    if (!s) return fresh;
    const v = JSON.parse(s) as Partial<Omit<ProjectUi, 'key'>>;
    return {
      key,
      filter: { ...EMPTY_FILTER, ...v.filter },
      sort: { ...DEFAULT_SORT, ...v.sort },
      columns: Array.isArray(v.columns) ? QUEUE_COLUMNS.filter((c) => v.columns?.includes(c)) : fresh.columns,
    };
  } catch {
    return fresh;
  }
}

export function App({ client }: { client: FlipbookClient }) {
  const [project, setProject] = useState<ProjectInfo | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [annotator, setAnnotator] = useState<string | null>(null);
  const [annotatorLoaded, setAnnotatorLoaded] = useState(false);
  const [route, setRoute] = useState<Route>(() => parseRoute(window.location.hash));
  const [knownAnnotators, setKnownAnnotators] = useState<string[]>([]);
  const [codebook, setCodebook] = useState<Codebook | null>(null);
  const [ui, setUi] = useState<ProjectUi>(() => loadUi(null));
  const [changingAnnotator, setChangingAnnotator] = useState(false);
  const [showShortcuts, setShowShortcuts] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // The queue's scroll position per project, while the app runs.
  const scrollByProject = useRef(new Map<string, number>());
  // Label of the overview mark whose items the queue shows, until saved as a named view.
  const [unsavedView, setUnsavedView] = useState<string | null>(null);

  const refreshProject = useCallback(async () => {
    const r = await client.call('project:info', {});
    if (r.ok) {
      setProject(r.value);
      if (r.value !== null) {
        const cb = await client.call('codebook:get', {});
        if (cb.ok) setCodebook(cb.value);
      }
    } else setError(r.error.message);
    setLoaded(true);
  }, [client]);

  useEffect(() => {
    void refreshProject();
    void loadAnnotator(client).then((a) => {
      setAnnotator(a);
      setAnnotatorLoaded(true);
    });
  }, [client, refreshProject]);

  // A new view starts at its top (a click-through from a scrolled overview must not land mid-page).
  useEffect(() => {
    window.scrollTo(0, 0);
  }, [route.view]);

  useEffect(() => {
    const onHash = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  // Another project opened: its own filter, sort and columns (derived state, set while rendering
  // so no frame ever shows one project's rows through another's filter).
  const projectKey = project?.path ?? null;
  if (ui.key !== projectKey) setUi(loadUi(projectKey));
  const { filter, sort, columns } = ui;
  const setFilter = useCallback((f: QueueFilter) => setUi((u) => ({ ...u, filter: f })), []);
  const setSort = useCallback((x: QueueSort) => setUi((u) => ({ ...u, sort: x })), []);
  const setColumns = useCallback((c: QueueColumn[]) => setUi((u) => ({ ...u, columns: c })), []);
  useEffect(() => {
    if (ui.key === null) return;
    window.localStorage.setItem(UI_PREFIX + ui.key, JSON.stringify({ filter: ui.filter, sort: ui.sort, columns: ui.columns }));
  }, [ui]);
  useEffect(() => setUnsavedView(null), [projectKey]);

  // Other windows/processes (or imports) change data: refresh what the views show.
  useEffect(
    () =>
      client.on('data:changed', (p) => {
        if (p.scope === 'project' || p.scope === 'settings') void refreshProject();
      }),
    [client, refreshProject],
  );

  // The app's one key listener: the table (shortcuts.ts) decides which action a key runs.
  const keyTable = useMemo(() => allShortcuts(codebook?.pathways ?? []), [codebook]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => handleKey(keyTable, e);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [keyTable]);
  useShortcuts('global', {
    help: () => setShowShortcuts(true),
    escape: () => escape(document.activeElement),
  });

  useEffect(
    () =>
      client.on('menu:command', (p) => {
        if (p.command === 'shortcuts') setShowShortcuts(true);
        if (p.command === 'undo') runAction('item', 'undo');
        if (p.command === 'redo') runAction('item', 'redo');
        if (p.command === 'open-project' || p.command === 'new-project' || p.command === 'import' || p.command === 'export') {
          window.location.hash = routeHash({ view: 'open' });
        }
      }),
    [client],
  );

  // The item view's prev/next in the queue as filtered and sorted (asked of the backend: the app never holds the queue).
  const neighbours = useNeighbours(client, project !== null && route.view === 'item' ? route.item : null, { filter, sort, annotator });
  // Names already used in this project, offered by the annotator prompt.
  const promptOpen = annotatorLoaded && (annotator === null || changingAnnotator);
  useEffect(() => {
    if (!promptOpen || project === null) return;
    let live = true;
    void client.call('queue:page', { filter: EMPTY_FILTER, sort: DEFAULT_SORT, offset: 0, limit: 0 }).then((r) => {
      if (live && r.ok) setKnownAnnotators(r.value.facets.annotators);
    });
    return () => {
      live = false;
    };
  }, [client, promptOpen, project]);

  const navigate = useCallback((r: Route) => {
    window.location.hash = routeHash(r);
  }, []);

  let body;
  if (!loaded || !annotatorLoaded) body = <p role="status">Loading…</p>;
  else if (project === null || route.view === 'open') {
    body = (
      <OpenView
        project={project}
        onProject={(p) => {
          setProject(p);
          void refreshProject();
        }}
        onImported={() => void refreshProject()}
      />
    );
  } else if (route.view === 'item' && annotator !== null) {
    body = (
      <ItemView
        key={rowKey(route.item)}
        item={route.item}
        annotator={annotator}
        codebook={codebook}
        readOnly={project.readOnly ? (project.readOnlyReason ?? 'opened read-only') : null}
        neighbours={neighbours}
        queueLength={neighbours.total}
        onNavigate={navigate}
      />
    );
  } else if (route.view === 'codebook') {
    body = <CodebookView onSaved={(cb) => setCodebook(cb)} />;
  } else if (route.view === 'team') {
    body = <TeamView annotator={annotator} codebook={codebook} onNavigate={navigate} />;
  } else if (route.view === 'overview') {
    body = (
      <OverviewView
        grids={project.grids}
        onQueue={(patch, label) => {
          setFilter({ ...EMPTY_FILTER, preset: 'all', ...patch });
          setUnsavedView(label);
          // A click-through shows a new list: from its first row, not where the last one was left.
          scrollByProject.current.set(project.path, 0);
          navigate({ view: 'queue' });
        }}
        onItem={(item, patch, label) => {
          setFilter({ ...EMPTY_FILTER, preset: 'all', ...patch });
          setUnsavedView(label);
          scrollByProject.current.set(project.path, 0);
          navigate({ view: 'item', item });
        }}
      />
    );
  } else {
    body = (
      <div className="queue-cols">
        <style>{hiddenColumnsCss(columns)}</style>
        <SavedViewsBar
          filter={filter}
          sort={sort}
          columns={columns}
          unsaved={unsavedView}
          onApply={(v) => {
            setFilter({ ...EMPTY_FILTER, ...v.filter });
            setSort(v.sort);
            setColumns(v.columns);
            setUnsavedView(null);
          }}
          onColumns={setColumns}
          onSaved={() => setUnsavedView(null)}
        />
        <QueueView
          key={project.path}
          project={project}
          scrollTop={scrollByProject.current.get(project.path) ?? 0}
          onScrollTop={(top) => scrollByProject.current.set(project.path, top)}
          annotator={annotator}
          filter={filter}
          sort={sort}
          onFilter={setFilter}
          onClear={() => {
            setFilter({ ...EMPTY_FILTER, preset: 'all' });
            setUnsavedView(null);
          }}
          onSort={setSort}
          onOpen={(item) => navigate({ view: 'item', item })}
        />
      </div>
    );
  }

  return (
    <ClientContext.Provider value={client}>
      <div className="app">
        <header className="topbar">
          <strong className="brand">Flipbook</strong>
          <nav aria-label="Views">
            <a href="#/open" aria-current={route.view === 'open' ? 'page' : undefined}>
              Project
            </a>
            <a href="#/queue" aria-current={route.view === 'queue' ? 'page' : undefined}>
              Queue
            </a>
            <a href="#/overview" aria-current={route.view === 'overview' ? 'page' : undefined}>
              Overview
            </a>
            <a href="#/team" aria-current={route.view === 'team' ? 'page' : undefined}>
              Team
            </a>
            <a href="#/codebook" aria-current={route.view === 'codebook' ? 'page' : undefined}>
              Codebook
            </a>
          </nav>
          <span className="project-name" aria-label="Open project">
            {project ? `${project.name}${project.readOnly ? ' (read-only)' : ''}` : 'no project'}
          </span>
          <span className="annotator">
            <span aria-label="Current annotator">{annotator ?? ''}</span>
            {annotator !== null && (
              <button
                type="button"
                className="link"
                aria-label="Change annotator"
                title="Change the annotator name this machine records"
                onClick={() => setChangingAnnotator(true)}
              >
                change
              </button>
            )}
          </span>
          <button type="button" onClick={() => setShowShortcuts(true)}>
            <kbd>?</kbd> Keyboard shortcuts
          </button>
        </header>
        {error && (
          <div role="alert" className="error">
            {error}{' '}
            <button type="button" aria-label="Dismiss error" onClick={() => setError(null)}>
              ×
            </button>
          </div>
        )}
        <main>
          <Suspense fallback={<p role="status">Loading…</p>}>{body}</Suspense>
        </main>
        {promptOpen && (
          <AnnotatorPrompt
            current={annotator}
            known={knownAnnotators}
            onSave={async (name) => {
              const saved = await saveAnnotator(client, name);
              setAnnotator(saved);
              setChangingAnnotator(false);
            }}
            {...(annotator !== null && { onCancel: () => setChangingAnnotator(false) })}
          />
        )}
        {showShortcuts && <ShortcutsDialog pathways={codebook?.pathways ?? []} onClose={() => setShowShortcuts(false)} />}
      </div>
    </ClientContext.Provider>
  );
}

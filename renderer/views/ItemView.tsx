import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { AnnotationEdit } from '../../shared/domain/annotations';
import { applyLocally, EMPTY_FIELDS, withSeen, type EditBody } from '../../shared/domain/edit-check';
import {
  ANNOTATION_STATUSES,
  type AnnotationState,
  type AnnotationStatus,
  type Codebook,
  type EvidenceSpan,
  type ItemDetail,
  type ItemRef,
  type Strip,
  type Tile,
} from '../../shared/api/contract';
import { suggestPathways } from '../../shared/api/suggestions';
import { describeChange, undoMessage } from '../../shared/domain/annotation-change';
import { useClient } from '../api/use-client';
import type { Route } from '../route';
import { useShortcuts } from '../keymap';
import { createTimeStore } from '../components/time-store';
import { useRenderCount } from '../components/render-count';
import { VideoPlayer, type PlayerHandle } from '../components/VideoPlayer';
import { Strips } from '../components/Strips';
import { MomentView } from '../components/MomentView';
import { follow, isWhole, minWindowS, panWindow, PAN_SHARE, spanWindow, wholeWindow, zoomWindow, ZOOM_FACTOR, type TimeWindow } from '../components/time-window';
import { TaggingPanel, type SaveState } from '../components/TaggingPanel';
import { SpansPanel } from '../components/SpansPanel';
import { SuggestionsBox } from '../components/SuggestionsBox';
import { AnnotatorsPanel } from '../components/AnnotatorsPanel';
import { QuestionImport } from '../components/QuestionImport';
import { GenerationPanel } from '../components/GenerationPanel';
import { nextTransition, nudgeSpan, spanBetween, togglePathway, togglePrimary } from './item-actions';
import { flushPrefetch, newJobId, orphanPrefetchJobs } from './prefetch-jobs';

const sameItem = (a: ItemRef, b: ItemRef) => a.model === b.model && a.split === b.split && a.sampleId === b.sampleId;

export function ItemView({
  item,
  annotator,
  codebook,
  readOnly: readOnlyReason = null,
  neighbours,
  queueLength,
  onNavigate,
}: {
  item: ItemRef;
  annotator: string;
  codebook: Codebook | null;
  /** Why the project is read-only (open in another Flipbook process), or null when writable. */
  readOnly?: string | null;
  neighbours: { prev: ItemRef | null; next: ItemRef | null; position: number; upcoming?: ItemRef[] };
  queueLength: number;
  onNavigate: (r: Route) => void;
}) {
  const client = useClient();
  const [detail, setDetail] = useState<ItemDetail | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [strips, setStrips] = useState<Strip[]>([]);
  const [state, setState] = useState<AnnotationState | null>(null);
  const [save, setSave] = useState<SaveState>({ kind: 'idle' });
  // The player's position lives outside React state: only the strips' playheads and the
  // player's own readout follow it, not the whole item view (60 updates a second while playing).
  const [timeStore] = useState(createTimeStore);
  const [pendingIn, setPendingIn] = useState<number | null>(null);
  const [selectedSpan, setSelectedSpan] = useState(0);
  const [looping, setLooping] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [proxy, setProxy] = useState<{ done: number; message: string | null } | null>(null);
  const [stripsReady, setStripsReady] = useState(false);
  // The time axis's window (docs/architecture.md "The item view's time axis and moment view"); null = the whole video.
  const [view, setView] = useState<TimeWindow | null>(null);
  const [momentOpen, setMomentOpen] = useState(false);
  // Bumped when the project or its settings changed elsewhere (an import, the media root): the
  // item, its video and its strips are asked for again.
  const [detailRev, setDetailRev] = useState(0);
  const player = useRef<PlayerHandle>(null);
  const queueRef = useRef<Promise<unknown>>(Promise.resolve());

  useEffect(() => setView(null), [item]);

  useEffect(() => {
    let live = true;
    const jobId = newJobId('strips');
    const itemJob = newJobId('item');
    const offProgress = client.on('job:progress', (p) => {
      if (p.jobId === itemJob && p.kind === 'proxy') setProxy({ done: p.done, message: p.message });
    });
    let flushed = false;
    const flush = () => {
      if (flushed) return;
      flushed = true;
      flushPrefetch((id) => void client.call('frames:cancel', { jobId: id }));
    };
    // Tile events travel apart from the strips response (SSE vs the HTTP reply), so one may
    // arrive first: keep the newest tile per (config, index) and merge it into whatever strips exist.
    const latest = new Map<string, Tile>();
    const merge = (ss: Strip[]) => ss.map((s) => ({ ...s, tiles: s.tiles.map((t) => latest.get(`${s.config}|${t.index}`) ?? t) }));
    const off = client.on('frames:tile', (p) => {
      if (p.jobId !== jobId) return;
      flush();
      const k = `${p.tile.config}|${p.tile.index}`;
      const prev = latest.get(k);
      if (prev && !prev.approximate && p.tile.approximate) return;
      latest.set(k, p.tile);
      setStrips(merge);
    });
    void (async () => {
      const [d, st] = await Promise.all([client.call('item:get', { ...item, jobId: itemJob }), client.call('annotation:state', { ...item, annotator })]);
      if (!live) return;
      if (!d.ok) return setLoadError(d.error.message);
      setDetail(d.value);
      if (st.ok) {
        savedRef.current = st.value;
        setState(st.value);
      } else setLoadError(st.error.message);
      setProxy(null);
      if (d.value.video || d.value.frames.length > 0) {
        const s = await client.call('frames:strips', { ...item, jobId });
        if (!live) return;
        if (s.ok) setStrips(merge(s.value.strips));
        else setNotice(`Frames unavailable: ${s.error.message}`);
        setStripsReady(true);
      } else flush();
    })();
    return () => {
      live = false;
      off();
      offProgress();
      void client.call('frames:cancel', { jobId });
    };
  }, [client, item, annotator, detailRev]);

  // Prefetch the queue's next items in the background (frame service priority 1: the item on
  // screen always goes first); the jobs are cancelled when the user leaves this item for
  // anything but them (prefetch-jobs.ts).
  const upcomingKey = (neighbours.upcoming ?? []).map((r) => `${r.model}\u0000${r.split}\u0000${r.sampleId}`).join('\u0001');
  useEffect(() => {
    if (!stripsReady) return;
    const jobs = (neighbours.upcoming ?? []).map((it) => ({ it, jobId: newJobId('prefetch') }));
    for (const { it, jobId } of jobs) void client.call('frames:strips', { ...it, jobId, priority: 1 });
    return () =>
      orphanPrefetchJobs(
        jobs.map((j) => j.jobId),
        (id) => void client.call('frames:cancel', { jobId: id }),
        3000,
      );
    // eslint-disable-next-line react-hooks/exhaustive-deps -- upcomingKey stands for neighbours.upcoming (a new array on every render)
  }, [client, stripsReady, upcomingKey]);

  const transition = state?.transition ?? detail?.defaultTransition ?? null;

  // What the user sees (docs/architecture.md "Live views"): the saved state as last answered,
  // plus this view's own edits still queued. Each edit is computed from it when the key is
  // pressed — "set pathway c on", never "toggle" — and carries the value it changes as seen, so
  // an edit made before a change elsewhere reached this view is refused or found already made
  // by the backend, never applied over it. (Set wherever state is set, not by an effect,
  // which could run late and put back an older state.)
  const savedRef = useRef<AnnotationState | null>(null);
  const pendingRef = useRef<EditBody[]>([]);
  const seenNow = useCallback(() => pendingRef.current.reduce(applyLocally, savedRef.current ?? { ...EMPTY_FIELDS }), []);

  /** Asks for the saved state again, queued behind the edits in flight (so it is never older than their answers). */
  const refreshQueued = useRef(false);
  const refresh = useCallback(() => {
    if (refreshQueued.current) return;
    refreshQueued.current = true;
    const run = async () => {
      refreshQueued.current = false;
      const st = await client.call('annotation:state', { ...item, annotator });
      if (!st.ok) return;
      const old = savedRef.current;
      savedRef.current = st.value;
      if (old === null || old.updatedAt !== st.value.updatedAt || JSON.stringify(old) !== JSON.stringify(st.value)) setState(st.value);
    };
    queueRef.current = queueRef.current.then(run, run);
  }, [client, item, annotator]);

  /** Edits run one after another so their order is the order the annotator made them. */
  const edit = useCallback(
    (change: EditBody | ((seen: ReturnType<typeof seenNow>) => EditBody | null)) => {
      // The read-only banner already says why; a second copy of it would only crowd the header.
      if (readOnlyReason !== null) return;
      const bodies: EditBody[] = [];
      const seen = seenNow();
      const body = typeof change === 'function' ? change(seen) : change;
      if (body === null) return;
      // The preselected transition becomes part of the annotation with its first edit.
      if (seen.transition === null && detail?.defaultTransition && body.op !== 'setTransition' && savedRef.current !== null) {
        bodies.push(withSeen(seen, { op: 'setTransition', transition: detail.defaultTransition }));
      }
      bodies.push(withSeen(bodies.reduce(applyLocally, seen), body));
      for (const b of bodies) {
        pendingRef.current.push(b);
        const run = async () => {
          setSave({ kind: 'saving' });
          const before = savedRef.current ?? { ...EMPTY_FIELDS };
          const r = await client.call('annotation:apply', { annotator, edit: { ...b, ...item } as AnnotationEdit });
          pendingRef.current.shift();
          if (!r.ok) {
            if (r.error.code === 'conflict') {
              // Someone else changed this field since the user saw it: nothing was overwritten;
              // the notice says what is saved, and the view shows it.
              setNotice(r.error.message);
              refresh();
              return setSave({ kind: 'error', message: 'changed elsewhere meanwhile; nothing was overwritten (the notice above says what is saved)' });
            }
            return setSave({ kind: 'error', message: r.error.message });
          }
          savedRef.current = r.value;
          setState(r.value);
          // What changed besides this edit (another window's edit this view had not heard of yet) is said, not hidden.
          const elsewhere = describeChange(applyLocally(before, b), r.value);
          if (elsewhere.length > 0) setNotice(`Changed elsewhere meanwhile (now shown): ${elsewhere.map((c) => `${c.field} ${c.from} → ${c.to}`).join('; ')}`);
          setSave({ kind: 'saved', at: new Date().toISOString() });
        };
        queueRef.current = queueRef.current.then(run, run);
      }
    },
    [client, annotator, item, detail, readOnlyReason, seenNow, refresh],
  );

  // Every window and tab of the project hears every change (data:changed: server-sent events in
  // the web mode, every window in Electron): this item's saved state is asked for again, and the
  // whole item when the project or its settings changed.
  useEffect(
    () =>
      client.on('data:changed', (p) => {
        if (p.scope === 'annotations' && (p.item === null || sameItem(p.item, item))) refresh();
        else if (p.scope === 'project' || p.scope === 'settings') setDetailRev((n) => n + 1);
      }),
    [client, item, refresh],
  );

  /**
   * Undo/redo act on this item only — the one on screen — so they never change what the user
   * cannot see; the notice says what changed ("Undid: status of 012-2 (SimQwen-7B) done → todo").
   * They queue behind pending edits, so they undo the edit the user made last.
   */
  const undoRedo = useCallback(
    (which: 'annotation:undo' | 'annotation:redo') => {
      // The read-only banner already says why.
      if (readOnlyReason !== null) return;
      const run = async () => {
        setSave({ kind: 'saving' });
        const before = savedRef.current;
        const r = await client.call(which, { annotator, item });
        if (!r.ok) return setSave({ kind: 'error', message: r.error.message });
        if (r.value === null) {
          setSave({ kind: 'idle' });
          return setNotice(which === 'annotation:undo' ? 'Nothing to undo on this item' : 'Nothing to redo on this item');
        }
        const after = r.value.state;
        savedRef.current = after;
        setState(after);
        setNotice(undoMessage(which === 'annotation:undo' ? 'Undid' : 'Redid', item, describeChange(before, after)));
        setSave({ kind: 'saved', at: new Date().toISOString() });
      };
      queueRef.current = queueRef.current.then(run, run);
    },
    [client, annotator, item, readOnlyReason],
  );

  const spans = useMemo(() => state?.spans ?? [], [state]);
  const fps = detail?.video?.fps ?? 30;
  // Without a video or a stated duration, the axis spans the frames the configs took.
  const durationS = detail?.video?.durationS ?? detail?.durationS ?? Math.max(0, ...(detail?.frames ?? []).flatMap((f) => f.timesS));
  const minS = minWindowS(fps);
  const win = view ?? wholeWindow(durationS);
  /** A zoom keeps the playhead in place when it is in the window (else the window's middle); the wheel passes the pointer's time. */
  const zoomBy = useCallback(
    (factor: number, anchorS?: number) =>
      setView((v) => {
        const w = v ?? wholeWindow(durationS);
        const t = timeStore.get();
        const a = anchorS ?? (t >= w.startS && t <= w.endS ? t : (w.startS + w.endS) / 2);
        const next = zoomWindow(w, factor, a, durationS, minS);
        return isWhole(next, durationS) ? null : next;
      }),
    [durationS, minS, timeStore],
  );
  const panBy = useCallback((shares: number) => setView((v) => (v === null ? null : panWindow(v, shares, durationS, minS))), [durationS, minS]);
  // The window follows the playhead when it leaves it (playing, stepping, a jump); a pan that
  // leaves the playhead behind is kept until the playhead moves.
  // Read through a ref, so that a tick inside the window (or any tick on the whole video) sets no state.
  const viewRef = useRef(view);
  useEffect(() => {
    viewRef.current = view;
  }, [view]);
  useEffect(
    () =>
      timeStore.subscribe(() => {
        const v = viewRef.current;
        if (v === null) return;
        const next = follow(v, timeStore.get(), durationS, minS);
        if (next !== v) {
          viewRef.current = next;
          setView(next);
        }
      }),
    [timeStore, durationS, minS],
  );
  const configs = detail?.configs.map((c) => c.key) ?? [];

  const nudge = useCallback(
    (which: 'startS' | 'endS', dir: 1 | -1) => {
      const id = spans[selectedSpan]?.id;
      if (id === undefined) return;
      // Computed when the edit runs, from the span as the edits before it left it.
      edit((cur) => nudgeSpan(cur, id, which, dir, fps));
    },
    [spans, selectedSpan, fps, edit],
  );

  const suggestions = useMemo(() => {
    if (!detail) return [];
    const tagged = new Set(state?.pathways ?? []);
    const known = new Set((codebook?.pathways ?? []).map((p) => p.id));
    return suggestPathways({ flags: detail.flags, taskType: detail.taskType, question: detail.question, transition, spans }).filter(
      (s) => !tagged.has(s.pathway) && known.has(s.pathway),
    );
  }, [detail, state, codebook, transition, spans]);

  const readOnly = readOnlyReason !== null;

  const now = () => player.current?.time() ?? timeStore.get();
  const toggleLoop = () => {
    const s = spans[selectedSpan];
    const p = player.current;
    if (looping || !s) {
      setLooping(false);
      return p?.setLoop(null);
    }
    setLooping(true);
    p?.setLoop({ startS: s.startS, endS: s.endS });
  };
  useShortcuts('item', {
    undo: () => void undoRedo('annotation:undo'),
    redo: () => void undoRedo('annotation:redo'),
    nextItem: () => neighbours.next && onNavigate({ view: 'item', item: neighbours.next }),
    prevItem: () => neighbours.prev && onNavigate({ view: 'item', item: neighbours.prev }),
    toQueue: () => onNavigate({ view: 'queue' }),
    playPause: () => player.current?.togglePlay(),
    stepForward: () => player.current?.step(1),
    stepBack: () => player.current?.step(-1),
    faster: () => player.current?.faster(),
    slower: () => player.current?.slower(),
    jump: () => document.getElementById('jump-input')?.focus(),
    notes: () => document.getElementById('notes-input')?.focus(),
    markIn: () => setPendingIn(now()),
    markOut: () => {
      if (pendingIn === null) return setNotice('Press i to mark the span start first');
      setPendingIn(null);
      setSelectedSpan(spans.length);
      edit({ op: 'addSpan', span: { id: crypto.randomUUID(), ...spanBetween(pendingIn, now()), label: '' } });
    },
    loop: toggleLoop,
    nextSpan: () => setSelectedSpan((i) => Math.min(Math.max(0, spans.length - 1), i + 1)),
    prevSpan: () => setSelectedSpan((i) => Math.max(0, i - 1)),
    nudgeStartEarlier: () => nudge('startS', -1),
    nudgeStartLater: () => nudge('startS', 1),
    nudgeEndEarlier: () => nudge('endS', -1),
    nudgeEndLater: () => nudge('endS', 1),
    deleteSpan: () => {
      const s = spans[selectedSpan];
      if (s) edit({ op: 'deleteSpan', spanId: s.id });
    },
    nextTransition: () => edit((cur) => nextTransition(cur, [...(detail?.harmed ?? []), ...(detail?.rescued ?? [])], transition)),
    confidence: (n) => edit({ op: 'setConfidence', confidence: Number(n) }),
    status: (st) => (ANNOTATION_STATUSES as readonly string[]).includes(st ?? '') && edit({ op: 'setStatus', status: st as AnnotationStatus }),
    zoomIn: () => zoomBy(1 / ZOOM_FACTOR),
    zoomOut: () => zoomBy(ZOOM_FACTOR),
    fitItem: () => setView(null),
    fitSpan: () => {
      const s = spans[selectedSpan] ?? spans[0];
      if (!s) return setNotice('No evidence span to fit: mark one with i and e, or drag on the time axis');
      const w = spanWindow(s, durationS, minS);
      setView(isWhole(w, durationS) ? null : w);
    },
    panEarlier: () => panBy(-PAN_SHARE),
    panLater: () => panBy(PAN_SHARE),
    moment: () => setMomentOpen((o) => !o),
    togglePathway: (id) => id && edit((cur) => togglePathway(cur, id)),
    primaryPathway: (id) => id && edit((cur) => togglePrimary(cur, id)),
  });

  // The strips are the point of this view: the video gets the height they leave on screen.
  const media = useRef<HTMLDivElement>(null);
  const root = useRef<HTMLDivElement>(null);
  useRenderCount(root);
  useEffect(() => {
    const node = media.current;
    const strips = node?.querySelector<HTMLElement>('.strips');
    if (!node || !strips) return;
    const moment = node.querySelector<HTMLElement>('.moment-view');
    const fit = () =>
      node.style.setProperty(
        '--player-max-h',
        `${Math.max(150, window.innerHeight - node.getBoundingClientRect().top - window.scrollY - strips.offsetHeight - (moment?.offsetHeight ?? 0) - 52)}px`,
      );
    const ro = new ResizeObserver(fit);
    ro.observe(strips);
    if (moment) ro.observe(moment);
    window.addEventListener('resize', fit);
    fit();
    return () => {
      ro.disconnect();
      window.removeEventListener('resize', fit);
    };
  }, [detail, stripsReady, momentOpen]);

  if (loadError) return <p role="alert">Could not open the item: {loadError}</p>;
  if (!detail)
    return (
      <p role="status">
        Loading item…
        {proxy && (
          <>
            {' '}
            {proxy.message ?? 'making a playable copy'} <progress aria-label="Proxy transcoding progress" max={1} value={proxy.done} /> {Math.round(proxy.done * 100)}%
          </>
        )}
      </p>
    );

  const letters = 'ABCDEFGH';
  return (
    <div className="item-view" data-testid="item-view" ref={root}>
      {readOnlyReason !== null && (
        <div className="read-only-banner" role="alert" aria-label="Read-only">
          Read-only — tagging and spans are disabled: {readOnlyReason}
        </div>
      )}
      <div className="item-header">
        <button type="button" onClick={() => onNavigate({ view: 'queue' })}>
          ← Back to queue
        </button>
        <button type="button" disabled={!neighbours.prev} onClick={() => neighbours.prev && onNavigate({ view: 'item', item: neighbours.prev })}>
          ◀ Previous item (k)
        </button>
        <button type="button" disabled={!neighbours.next} onClick={() => neighbours.next && onNavigate({ view: 'item', item: neighbours.next })}>
          Next item (j) ▶
        </button>
        <h2 className="item-title">
          {detail.sampleId} · {detail.model} · {detail.split}
        </h2>
        <span>{neighbours.position >= 0 ? `${neighbours.position + 1} of ${queueLength} in queue` : 'not in the current queue filter'}</span>
        {/* The tagging column puts the controls first; the question stays in sight here (whole in the column, below the spans). */}
        {detail.question !== null && (
          <span className="header-question" title={detail.question}>
            {detail.question}
          </span>
        )}
        {notice && (
          <span role="status" aria-label="Item notice" className="notice">
            {notice}
          </span>
        )}
      </div>
      <div className="item-body">
        <div className="item-media" ref={media} style={{ ['--aspect' as string]: detail.video?.width && detail.video.height ? detail.video.width / detail.video.height : 16 / 9 }}>
          {detail.video ? (
            <VideoPlayer ref={player} video={detail.video} timeStore={timeStore} />
          ) : (
            <div className="no-video" role="alert" aria-label="No video">
              <strong>No video</strong>: {detail.videoError ?? 'this item has no video file'}.{' '}
              {detail.frames.length === 0 && 'The frame strips need the video too; set the media root on the Project page. Answers, tags and spans still work.'}
            </div>
          )}
          {detail.video && detail.videoError && (
            <p role="status" className="notice">
              {detail.videoError}
            </p>
          )}
          {(detail.video || detail.frames.length > 0) && (
            <>
              {momentOpen && <MomentView strips={strips} timeStore={timeStore} onSeekFrame={(k) => player.current?.seekFrame(k)} onClose={() => setMomentOpen(false)} />}
              <Strips
                strips={strips}
                outcomes={detail.configs}
                durationS={durationS}
                timeStore={timeStore}
                onSeekFrame={(k) => player.current?.seekFrame(k)}
                spans={spans}
                selectedSpan={selectedSpan}
                markIn={pendingIn}
                view={win}
                readOnly={readOnly}
                onZoom={zoomBy}
                onPan={panBy}
                onSeekTime={(t) => player.current?.seekTime(t)}
                onSelectSpan={setSelectedSpan}
                onCreateSpan={(startS, endS) => {
                  setSelectedSpan(spans.length);
                  edit({ op: 'addSpan', span: { id: crypto.randomUUID(), startS, endS, label: '' } });
                }}
                onResizeSpan={(sp, patch) => edit((cur) => (cur.spans.some((x) => x.id === sp.id) ? { op: 'updateSpan', spanId: sp.id, patch } : null))}
                onFullFrame={async (index) => {
                  const r = await client.call('frames:full', { ...item, index });
                  return r.ok ? r.value.url : null;
                }}
              />
            </>
          )}
        </div>
        <div className="item-side">
          <TaggingPanel
            codebook={codebook}
            state={state}
            transitions={[...detail.harmed, ...detail.rescued]}
            transition={transition}
            save={save}
            readOnly={readOnly}
            actions={{
              togglePathway: (id) => edit((cur) => togglePathway(cur, id)),
              setPrimary: (id) => edit({ op: 'setPrimary', pathway: id }),
              setTransition: (t) => edit({ op: 'setTransition', transition: t }),
              setNotes: (notes) => edit({ op: 'setNotes', notes }),
              setConfidence: (c) => edit({ op: 'setConfidence', confidence: c }),
              setStatus: (s) => edit({ op: 'setStatus', status: s }),
            }}
          />
          <SpansPanel
            spans={spans}
            selected={selectedSpan}
            pendingIn={pendingIn}
            configs={configs}
            readOnly={readOnly}
            onSelect={setSelectedSpan}
            onLabel={(s: EvidenceSpan, label) => edit({ op: 'updateSpan', spanId: s.id, patch: { label } })}
            onDelete={(s) => edit({ op: 'deleteSpan', spanId: s.id })}
            onLoop={(s) => {
              setLooping(true);
              player.current?.setLoop({ startS: s.startS, endS: s.endS });
            }}
          />
          <SuggestionsBox suggestions={suggestions} readOnly={readOnly} onApply={(id) => edit({ op: 'setPathway', pathway: id, on: true })} />
          {detail.kind === 'open' && <GenerationPanel detail={detail} questionFallback={<QuestionImport split={detail.split} readOnly={readOnly} compact />} />}
          <section className="facts" aria-label="Item facts" hidden={detail.kind === 'open'}>
            {detail.question !== null ? <p className="question">{detail.question}</p> : <QuestionImport split={detail.split} readOnly={readOnly} compact />}
            {detail.options.length > 0 && (
              <ol className="options" aria-label="Options">
                {detail.options.map((o, i) => (
                  <li key={i} className={letters[i] === detail.groundTruth ? 'gt' : ''}>
                    <strong>{letters[i]}.</strong> {o}
                  </li>
                ))}
              </ol>
            )}
            <p>
              Ground truth: <strong aria-label="Ground truth">{detail.groundTruth ?? '—'}</strong> · task {detail.taskType ?? '—'} · pattern{' '}
              <code aria-label="Pattern">{detail.pattern}</code> · {detail.trajectoryClass ?? '—'}
            </p>
            <p aria-label="Flags">
              {detail.flags.terminalRegression && <span className="flag tr">terminal regression</span>}
              {detail.flags.visuallyConfused && <span className="flag vc">visually confused</span>}
              {detail.flags.textOverwritten && <span className="flag to">text overwritten</span>}
            </p>
            <table className="predictions" aria-label="Predictions per config">
              <thead>
                <tr>
                  <th scope="col">config</th>
                  <th scope="col">sampler</th>
                  <th scope="col">answer</th>
                  <th scope="col">conf</th>
                  <th scope="col">margin</th>
                </tr>
              </thead>
              <tbody>
                {detail.configs.map((c) => (
                  <tr key={c.key} className={c.correct === true ? 'ok' : c.correct === false ? 'bad' : ''}>
                    <td>{c.key}</td>
                    <td>{c.sampler ?? '—'}</td>
                    <td>
                      {c.pred ?? '—'} {c.correct === true ? '✓' : c.correct === false ? '✗' : c.score !== null ? c.score.toFixed(2) : ''}
                    </td>
                    <td>{c.confidence === null ? '—' : c.confidence.toFixed(2)}</td>
                    <td>{c.margin === null ? '—' : c.margin.toFixed(2)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          <AnnotatorsPanel item={item} annotator={annotator} codebook={codebook} refreshKey={state?.updatedAt ?? ''} />
        </div>
      </div>
    </div>
  );
}

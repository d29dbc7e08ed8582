import { useEffect, useLayoutEffect, useRef, useState, type MouseEvent as ReactMouseEvent, type PointerEvent as ReactPointerEvent } from 'react';
import { createPortal } from 'react-dom';
import { usePlayerTime, type TimeStore } from './time-store';
import { useRenderCount } from './render-count';
import type { ConfigOutcome, EvidenceSpan, Strip, Tile } from '../../shared/api/contract';
import { isWhole, type TimeWindow } from './time-window';
import { newFrames } from './moment';

function fmt(n: number | null, digits = 2): string {
  return n === null || Number.isNaN(n) ? '—' : n.toFixed(digits);
}

/** Largest tile width (px): sparse strips stay thumbnails, not posters (the moment view shows frames large). */
const MAX_TILE_W = 64;
/** A strip is one row at every zoom: dense strips get narrow tiles (the hover preview, the moment view and zooming in show them whole). */
const MIN_TILE_W = 6;
/** Narrow tiles keep this height (cropped to their middle), so a dense strip is still a row of pictures. */
const MIN_TILE_H = 24;
/** A pointer that moves less than this between press and release on the axis is a click (seek), not a drag (span). */
const DRAG_PX = 4;
/** However short a span is, it is drawn at least this wide (docs/architecture.md "The item view's time axis and moment view"). */
const MIN_SPAN_PX = 8;
const PREVIEW_W = 480;
const PREVIEW_CAPTION_H = 24;
const GAP = 14;

/** A readable tick step (seconds) giving roughly `want` ticks over `duration`. */
function tickStep(duration: number, want: number): number {
  const raw = duration / Math.max(1, want);
  for (const s of [0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600]) if (s >= raw) return s;
  return 3600 * Math.ceil(raw / 3600);
}

function tickLabel(s: number, step: number): string {
  if (step < 1) {
    const frac = s.toFixed(step < 0.25 ? 1 : 2).replace(/0$/, '');
    // Zoomed into a long video: minutes too, so 3:23.25 reads as the same clock as 3:20.
    if (s < 60) return frac;
    const sec = (s % 60).toFixed(step < 0.25 ? 1 : 2).replace(/0$/, '');
    return `${Math.floor(s / 60)}:${sec.padStart(sec.indexOf('.') === 1 ? sec.length + 1 : sec.length, '0')}`;
  }
  if (s >= 60) return `${Math.floor(s / 60)}:${String(Math.round(s % 60)).padStart(2, '0')}`;
  return String(Math.round(s));
}

type Zoom = { config: string; tile: Tile; x: number; y: number; anchor: DOMRect; isNew: boolean };

/**
 * Where the floating preview goes: beside the pointer (or the focused tile), inside the
 * viewport, preferring below-right and flipping when it would leave the window — so it never
 * sits glued over the strip the user is reading.
 */
function previewPosition(z: Zoom, w: number, h: number): { left: number; top: number } {
  const vw = window.innerWidth;
  const vh = window.innerHeight;
  let left = z.x + GAP;
  if (left + w > vw - 8) left = z.x - GAP - w;
  left = Math.max(8, Math.min(left, vw - w - 8));
  // Vertically: below the tile if it fits, else above it, else pinned inside the window.
  let top = z.anchor.bottom + GAP;
  if (top + h > vh - 8) top = z.anchor.top - GAP - h;
  top = Math.max(8, Math.min(top, vh - h - 8));
  return { left, top };
}

/** The red line at the player's position: re-renders on every tick, alone. */
function Playhead({ store, x }: { store: TimeStore; x: (s: number) => number }) {
  const t = usePlayerTime(store);
  return <div className="playhead" style={{ left: x(t) }} aria-hidden="true" />;
}

/** A drag on the axis: a new span from `fromS`, or one edge of an existing span. */
type Drag = { kind: 'create'; fromS: number; x0: number } | { kind: 'start' | 'end'; id: string; startS: number; endS: number };

/**
 * One strip per config, ordered by budget (the order the backend gives), tiles placed on one
 * shared, zoomable time axis (drawn once, above) so a frame picked by several budgets lines up
 * vertically; the player's position is drawn as the same vertical line on every strip. The
 * axis shows `view`, a window of the video: tiles outside it are not drawn, and every strip is
 * one row at every zoom (docs/architecture.md "The item view's time axis and moment view"). On the axis, a drag
 * makes an evidence span, a drag of a span's edge moves it, a click seeks; the wheel zooms
 * around the pointer, and pans with Shift (or sideways).
 */
export function Strips({
  strips,
  outcomes,
  durationS,
  timeStore,
  onSeekFrame,
  onFullFrame,
  spans = [],
  selectedSpan = -1,
  markIn = null,
  view,
  readOnly = false,
  onZoom,
  onPan,
  onSeekTime,
  onSelectSpan,
  onCreateSpan,
  onResizeSpan,
}: {
  strips: Strip[];
  outcomes: ConfigOutcome[];
  durationS: number;
  /** The player's position; only the playheads subscribe to it. */
  timeStore: TimeStore;
  /** Evidence spans, drawn as bands on the axis and on every strip (covered or missed by it). */
  spans?: readonly EvidenceSpan[];
  selectedSpan?: number;
  /** A span start marked with `i` and not yet closed: drawn as a line so the annotator sees where it began. */
  markIn?: number | null;
  onSeekFrame: (index: number) => void;
  /** URL of the full-size frame, extracted on demand (null when it cannot be). */
  onFullFrame?: (index: number) => Promise<string | null>;
  /** The part of the video the axis shows (the whole video when absent). */
  view?: TimeWindow;
  /** No span is made or moved on the axis (the project is open elsewhere). */
  readOnly?: boolean;
  /** Wheel: zoom by `factor` (< 1 zooms in) around `anchorS`. */
  onZoom?: (factor: number, anchorS: number) => void;
  /** Shift+wheel or a sideways wheel: pan by `shares` of the window. */
  onPan?: (shares: number) => void;
  onSeekTime?: (t: number) => void;
  onSelectSpan?: (i: number) => void;
  onCreateSpan?: (startS: number, endS: number) => void;
  onResizeSpan?: (span: EvidenceSpan, patch: { startS: number; endS: number }) => void;
}) {
  const duration = Math.max(durationS, 1e-6);
  const win = view ?? { startS: 0, endS: duration };
  const winLen = Math.max(1e-6, win.endS - win.startS);
  // Hover (or keyboard focus) enlarges a tile: the thumbnail at once, the full-size frame when extracted.
  const [zoom, setZoom] = useState<Zoom | null>(null);
  const [full, setFull] = useState<Map<number, string>>(() => new Map());
  const [aspect, setAspect] = useState(16 / 9);
  const [trackW, setTrackW] = useState(0);
  const [draft, setDraft] = useState<{ id: string | null; startS: number; endS: number } | null>(null);
  const drag = useRef<Drag | null>(null);
  const axisRef = useRef<HTMLDivElement>(null);
  const asked = useRef(new Set<number>());
  const root = useRef<HTMLDivElement>(null);
  useRenderCount(root);

  useLayoutEffect(() => {
    const node = axisRef.current;
    if (!node) return;
    const measure = () => setTrackW(node.clientWidth);
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(node);
    return () => ro.disconnect();
  }, []);

  useEffect(() => {
    if (!zoom || !onFullFrame || asked.current.has(zoom.tile.index)) return;
    const k = zoom.tile.index;
    asked.current.add(k);
    void onFullFrame(k).then((url) => {
      if (url) setFull((m) => new Map(m).set(k, url));
      else asked.current.delete(k);
    });
  }, [zoom, onFullFrame]);

  // Frames a budget has that the next-smaller budget with frames lacks: the moment view's rule, from moment.ts
  // (docs/architecture.md "The item view's time axis and moment view").
  const fresh = newFrames(strips);
  const previousConfig = new Map<string, string>();
  strips.reduce<string | null>((prev, s) => {
    if (s.tiles.length === 0) return prev;
    if (prev !== null) previousConfig.set(s.config, prev);
    return s.config;
  }, null);

  // How many of each strip's tiles fall in the window: a strip's tiles share its width.
  const inWindow = (t: Tile) => t.timeS >= win.startS - 1e-9 && t.timeS <= win.endS + 1e-9;
  const visibleCount = new Map(strips.map((s) => [s.config, s.tiles.filter(inWindow).length]));
  const counts = [...visibleCount.values()].filter((n) => n > 0);
  // All strips share one lane (the track minus a margin of half the widest tile on each side),
  // so equal times sit at equal x on every strip and on the axis.
  const widest = Math.min(MAX_TILE_W, trackW / Math.max(1, Math.min(...counts, 64)));
  const pad = Math.ceil(widest / 2) + 1;
  const lane = Math.max(1, trackW - 2 * pad);
  const x = (s: number) => pad + ((s - win.startS) / winLen) * lane;
  const timeAt = (px: number) => Math.max(0, Math.min(duration, win.startS + ((px - pad) / lane) * winLen));
  const tileW = (n: number) => Math.max(MIN_TILE_W, Math.min(MAX_TILE_W, lane / Math.max(1, n) - 3));

  // A span's band has the span's true extent (so what it covers can be read off the tiles);
  // what is drawn is at least MIN_SPAN_PX wide (.span-band::before), so a short span is never a hairline.
  const extent = (sp: EvidenceSpan) => (draft && draft.id === sp.id ? draft : sp);
  const band = (e: { startS: number; endS: number }) => {
    const l = x(e.startS);
    const r = x(e.endS);
    return { left: l, width: Math.max(0, r - l), ['--min-span' as string]: `${MIN_SPAN_PX}px` };
  };
  const shown = (e: { startS: number; endS: number }) => e.endS >= win.startS - winLen * 0.01 && e.startS <= win.endS + winLen * 0.01;
  const markLine = markIn !== null && <div className="mark-in" style={{ left: x(markIn) }} aria-hidden="true" />;

  const step = tickStep(winLen, Math.max(2, Math.floor(lane / 90)));
  const ticks: number[] = [];
  for (let t = Math.ceil(win.startS / step - 1e-9) * step; t <= win.endS + 1e-9 && ticks.length < 400; t += step) ticks.push(Math.round(t * 1000) / 1000);

  // The wheel over the tracks zooms around the pointer; with Shift, or sideways, it pans.
  // A listener of our own, not React's: React's wheel listeners are passive and cannot keep the page from scrolling.
  const wheelRef = useRef({ onZoom, onPan, timeAt, lane });
  useEffect(() => {
    wheelRef.current = { onZoom, onPan, timeAt, lane };
  });
  useEffect(() => {
    const node = root.current;
    if (!node) return;
    const onWheel = (e: WheelEvent) => {
      const axis = axisRef.current;
      if (!axis) return;
      const r = axis.getBoundingClientRect();
      if (e.clientX < r.left || e.clientX > r.right) return;
      const h = wheelRef.current;
      const sideways = e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY);
      const delta = sideways ? (Math.abs(e.deltaX) > Math.abs(e.deltaY) ? e.deltaX : e.deltaY) : e.deltaY;
      if (delta === 0) return;
      e.preventDefault();
      const px = e.deltaMode === 1 ? delta * 16 : e.deltaMode === 2 ? delta * h.lane : delta;
      if (sideways) h.onPan?.(px / h.lane);
      else h.onZoom?.(Math.pow(2, px / 300), h.timeAt(e.clientX - r.left));
    };
    node.addEventListener('wheel', onWheel, { passive: false });
    return () => node.removeEventListener('wheel', onWheel);
  }, []);

  const localX = (e: ReactPointerEvent<HTMLElement>) => e.clientX - (axisRef.current?.getBoundingClientRect().left ?? 0);
  const axisDown = (e: ReactPointerEvent<HTMLDivElement>) => {
    if (e.button !== 0) return;
    e.currentTarget.setPointerCapture(e.pointerId);
    drag.current = { kind: 'create', fromS: timeAt(localX(e)), x0: e.clientX };
  };
  const edgeDown = (sp: EvidenceSpan, i: number, kind: 'start' | 'end') => (e: ReactPointerEvent<HTMLDivElement>) => {
    if (e.button !== 0) return;
    e.stopPropagation();
    onSelectSpan?.(i);
    if (readOnly) return;
    axisRef.current?.setPointerCapture(e.pointerId);
    drag.current = { kind, id: sp.id, startS: sp.startS, endS: sp.endS };
  };
  const axisMove = (e: ReactPointerEvent<HTMLDivElement>) => {
    const d = drag.current;
    if (!d) return;
    const t = timeAt(localX(e));
    if (d.kind === 'create') {
      if (readOnly || Math.abs(e.clientX - d.x0) < DRAG_PX) return setDraft(null);
      setDraft({ id: null, startS: Math.min(d.fromS, t), endS: Math.max(d.fromS, t) });
    } else if (d.kind === 'start') setDraft({ id: d.id, startS: Math.min(t, d.endS), endS: d.endS });
    else setDraft({ id: d.id, startS: d.startS, endS: Math.max(t, d.startS) });
  };
  const axisUp = (e: ReactPointerEvent<HTMLDivElement>) => {
    const d = drag.current;
    drag.current = null;
    const dr = draft;
    setDraft(null);
    if (!d) return;
    if (d.kind === 'create') {
      if (dr && dr.id === null && dr.endS > dr.startS) onCreateSpan?.(dr.startS, dr.endS);
      else if (Math.abs(e.clientX - d.x0) < DRAG_PX) onSeekTime?.(d.fromS);
      return;
    }
    const sp = spans.find((s) => s.id === d.id);
    if (sp && dr && dr.id === d.id && (dr.startS !== sp.startS || dr.endS !== sp.endS)) onResizeSpan?.(sp, { startS: dr.startS, endS: dr.endS });
  };

  /** A strip with no frame in the window says where its nearest frames are, on either side. */
  const outside = (tiles: readonly Tile[]) => {
    const before = Math.max(-Infinity, ...tiles.filter((t) => t.timeS < win.startS).map((t) => t.timeS));
    const after = Math.min(Infinity, ...tiles.filter((t) => t.timeS > win.endS).map((t) => t.timeS));
    return [Number.isFinite(before) ? `← ${before.toFixed(1)} s` : '', 'no frame in this window', Number.isFinite(after) ? `${after.toFixed(1)} s →` : '']
      .filter(Boolean)
      .join(' · ');
  };

  const hoverIndex = zoom?.tile.index ?? null;
  const enter = (config: string, tile: Tile, isNew: boolean) => (e: ReactMouseEvent<HTMLButtonElement>) =>
    setZoom({ config, tile, x: e.clientX, y: e.clientY, anchor: e.currentTarget.getBoundingClientRect(), isNew });
  const move = (e: ReactMouseEvent<HTMLButtonElement>) => setZoom((z) => (z ? { ...z, x: e.clientX, y: e.clientY } : z));

  const previewH = PREVIEW_W / aspect + PREVIEW_CAPTION_H;
  const previewW = Math.min(PREVIEW_W, typeof window === 'undefined' ? PREVIEW_W : window.innerWidth * 0.45);
  const preview =
    zoom &&
    createPortal(
      <figure
        className="tile-zoom"
        style={{ ...previewPosition(zoom, previewW, (previewW / PREVIEW_W) * previewH), width: previewW }}
        aria-label={`Enlarged frame ${zoom.tile.index}`}
        data-full={full.has(zoom.tile.index) ? 'true' : 'false'}
      >
        <div className="tile-zoom-image" style={{ aspectRatio: String(aspect) }}>
          {(full.get(zoom.tile.index) ?? zoom.tile.url) && <img src={full.get(zoom.tile.index) ?? zoom.tile.url ?? ''} alt={`frame ${zoom.tile.index}`} />}
        </div>
        <figcaption>
          <strong>frame {zoom.tile.index}</strong>
          <span>{zoom.tile.timeS.toFixed(2)} s</span>
          <span>{zoom.config}</span>
          {zoom.isNew && <span className="new-badge">new in this budget</span>}
          <span className="muted">{full.has(zoom.tile.index) ? 'full size' : zoom.tile.approximate ? 'approximate' : 'loading full size…'}</span>
        </figcaption>
      </figure>,
      document.body,
    );

  const whole = isWhole(win, duration);
  return (
    <div
      className="strips"
      role="group"
      aria-label="Frame strips"
      ref={root}
      data-window-start={win.startS.toFixed(3)}
      data-window-end={win.endS.toFixed(3)}
      data-zoomed={whole ? 'false' : 'true'}
    >
      {/* Mouse only: every action on the axis has a key (README.md "Keyboard shortcuts"). */}
      <div className="strip strip-axis" aria-hidden="true">
        <div className="strip-label axis-label">
          <span>time (s)</span>
          <span className="window-readout">
            {whole ? 'whole video' : `${win.startS.toFixed(1)}–${win.endS.toFixed(1)} s · ×${(duration / winLen).toFixed(winLen < duration / 10 ? 0 : 1)}`}
          </span>
          {!whole && (
            <span className="minimap" aria-hidden="true">
              <span style={{ left: `${(win.startS / duration) * 100}%`, width: `${Math.max(1, (winLen / duration) * 100)}%` }} />
            </span>
          )}
        </div>
        <div
          className={`axis-track${readOnly ? '' : ' editable'}`}
          ref={axisRef}
          title={readOnly ? 'Click to seek' : 'Drag to mark an evidence span; drag a span’s edge to move it; click to seek; wheel to zoom, Shift+wheel to pan'}
          onPointerDown={axisDown}
          onPointerMove={axisMove}
          onPointerUp={axisUp}
          onPointerCancel={() => {
            drag.current = null;
            setDraft(null);
          }}
        >
          {/* A label cut by the axis's edge would misread (3:20.0 as 20.0): ticks too near an edge are left out. */}
          {ticks
            .filter((t) => x(t) - tickLabel(t, step).length * 3.3 >= 0 && x(t) + tickLabel(t, step).length * 3.3 <= trackW)
            .map((t) => (
              <span key={t} className="tick" style={{ left: x(t) }}>
                {tickLabel(t, step)}
              </span>
            ))}
          {spans.map((sp, i) =>
            shown(extent(sp)) ? (
              <div
                key={sp.id}
                className={`span-band${i === selectedSpan ? ' selected' : ''}`}
                style={band(extent(sp))}
                data-span={i + 1}
                title={`span ${i + 1}${sp.label ? ` (${sp.label})` : ''}: ${sp.startS.toFixed(2)}–${sp.endS.toFixed(2)} s`}
                onPointerDown={(e) => {
                  if (e.button !== 0) return;
                  e.stopPropagation();
                  onSelectSpan?.(i);
                }}
              >
                <span className="span-number">{i + 1}</span>
                {!readOnly && (
                  <>
                    <div className="span-edge start" onPointerDown={edgeDown(sp, i, 'start')} />
                    <div className="span-edge end" onPointerDown={edgeDown(sp, i, 'end')} />
                  </>
                )}
              </div>
            ) : null,
          )}
          {draft && draft.id === null && <div className="span-band draft" style={band(draft)} />}
          {markLine}
          <Playhead store={timeStore} x={x} />
        </div>
      </div>
      {strips.map((s) => {
        const o = outcomes.find((c) => c.key === s.config);
        const approx = s.tiles.filter((t) => t.approximate).length;
        // A config without frames (text only) has no sampler: say so instead of naming one.
        const textOnly = s.tiles.length === 0 && (s.sampler === null || o?.frames === 0);
        const n = visibleCount.get(s.config) ?? 0;
        const w = tileW(n);
        const h = Math.max(MIN_TILE_H, Math.round(w / aspect));
        // Tiles half a tile outside the window still show their inner half at its edge; the rest are not drawn.
        const marginS = ((w / 2 + 1) / lane) * winLen;
        const drawn = s.tiles.filter((t) => t.timeS >= win.startS - marginS && t.timeS <= win.endS + marginS);
        const sampler = textOnly ? 'text only — no frames' : (s.sampler ?? 'sampler unknown');
        const news = fresh.get(s.config) ?? new Set<number>();
        const prevConfig = previousConfig.get(s.config);
        const verdict = o?.correct === true ? 'ok' : o?.correct === false ? 'bad' : 'none';
        return (
          <div
            className={`strip verdict-${verdict}`}
            key={s.config}
            role="group"
            aria-label={`Strip ${s.config}`}
            data-config={s.config}
            data-frames={s.tiles.length}
            data-visible={n}
          >
            <div className="strip-label">
              <div className="strip-title">
                <strong>{s.config}</strong>
                {o && (
                  <span className={`answer ${verdict}`} aria-label={`Answer of ${s.config}`}>
                    {o.pred ?? '—'} {o.correct === true ? '✓' : o.correct === false ? '✗' : ''}
                  </span>
                )}
                {prevConfig !== undefined && (
                  <span
                    className="new-count"
                    title={`${news.size} of ${s.tiles.length} frames are new in this budget: ${prevConfig} did not take them (a bar on the tile's top edge)`}
                  >
                    <span className="new-swatch" aria-hidden="true" />
                    {news.size} new
                  </span>
                )}
              </div>
              <span className="sampler" aria-label={`Sampler of ${s.config}`} title={sampler}>
                {sampler}
              </span>
              <span className="conf">
                {o && `conf ${fmt(o.confidence)} · margin ${fmt(o.margin)} · `}
                <span className="count">
                  {whole ? `${s.tiles.length} fr` : `${n} of ${s.tiles.length} fr`}
                  {approx > 0 ? ` · ${approx} ≈` : ''}
                </span>
              </span>
            </div>
            <div className="strip-track" data-rows={1} style={{ height: s.tiles.length > 0 ? h + 6 : undefined }}>
              {drawn.map((t) => {
                const isNew = news.has(t.index);
                return (
                  <button
                    type="button"
                    key={t.index}
                    className={`tile${t.approximate ? ' approximate' : ''}${isNew ? ' new-frame' : ''}${hoverIndex === t.index ? ' same-frame' : ''}`}
                    style={{ left: x(t.timeS), top: 3, width: w, height: h, marginLeft: -w / 2 }}
                    aria-label={`${s.config} frame ${t.index} at ${t.timeS.toFixed(2)} s${t.approximate ? ' (approximate)' : ''}${isNew ? `, new in this budget (not in ${prevConfig ?? 'the previous budget'})` : ''}`}
                    data-approximate={t.approximate ? 'true' : 'false'}
                    data-new={isNew ? 'true' : 'false'}
                    data-index={t.index}
                    data-time={t.timeS}
                    onClick={() => onSeekFrame(t.index)}
                    onMouseEnter={enter(s.config, t, isNew)}
                    onMouseMove={move}
                    onMouseLeave={() => setZoom(null)}
                    onFocus={(e) => {
                      const r = e.currentTarget.getBoundingClientRect();
                      setZoom({ config: s.config, tile: t, x: r.right, y: r.top, anchor: r, isNew });
                    }}
                    onBlur={() => setZoom(null)}
                  >
                    {t.url ? (
                      <img
                        src={t.url}
                        alt=""
                        draggable={false}
                        onLoad={(e) => {
                          const img = e.currentTarget;
                          if (img.naturalWidth > 0 && img.naturalHeight > 0) {
                            const a = img.naturalWidth / img.naturalHeight;
                            setAspect((old) => (Math.abs(old - a) > 0.01 ? a : old));
                          }
                        }}
                      />
                    ) : (
                      <span className="tile-empty" />
                    )}
                    {t.approximate && <span className="approx-badge">≈</span>}
                  </button>
                );
              })}
              {s.tiles.length > 0 &&
                spans.map((sp, i) => {
                  // Coverage is the backend's (covered_by in docs/release-format.md "annotations/"), not recomputed from pixels here.
                  const covered = sp.coveredBy.includes(s.config);
                  return shown(sp) ? (
                    <div
                      key={sp.id}
                      className={`span-band ${covered ? 'covered' : 'missed'}${i === selectedSpan ? ' selected' : ''}`}
                      style={band(extent(sp))}
                      data-span={i + 1}
                      data-covered={covered ? 'true' : 'false'}
                      aria-hidden="true"
                    />
                  ) : null;
                })}
              {s.tiles.length > 0 && markLine}
              {s.tiles.length === 0 && <span className="strip-empty">{textOnly ? 'text only — no frames' : 'no frames'}</span>}
              {s.tiles.length > 0 && n === 0 && <span className="strip-empty window-empty">{outside(s.tiles)}</span>}
              <Playhead store={timeStore} x={x} />
            </div>
          </div>
        );
      })}
      {preview}
    </div>
  );
}

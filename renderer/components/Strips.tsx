import { useEffect, useLayoutEffect, useRef, useState, type MouseEvent as ReactMouseEvent } from 'react';
import { createPortal } from 'react-dom';
import { usePlayerTime, type TimeStore } from './time-store';
import { useRenderCount } from './render-count';
import type { ConfigOutcome, EvidenceSpan, Strip, Tile } from '../../shared/api/contract';

function fmt(n: number | null, digits = 2): string {
  return n === null || Number.isNaN(n) ? '—' : n.toFixed(digits);
}

/** Largest tile width (px): sparse strips stay thumbnails, not posters. */
const MAX_TILE_W = 104;
/** Below this width a strip's tiles are staggered over more rows instead of shrinking further. */
const MIN_SINGLE_ROW_W = 30;
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
  if (step < 1) return s.toFixed(step < 0.25 ? 1 : 2).replace(/0$/, '');
  if (s >= 60) return `${Math.floor(s / 60)}:${String(Math.round(s % 60)).padStart(2, '0')}`;
  return String(Math.round(s));
}

type Zoom = { config: string; tile: Tile; x: number; y: number; anchor: DOMRect };

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

/**
 * One strip per config, ordered by budget (the order the backend gives), tiles placed on one
 * shared time axis (drawn once, above) so a frame picked by several budgets lines up
 * vertically; the player's position is drawn as the same vertical line on every strip. Tiles
 * keep the video's aspect and grow with the width: a strip with N frames gets 1/N of it.
 */
/** The red line at the player's position: re-renders on every tick, alone. */
function Playhead({ store, x }: { store: TimeStore; x: (s: number) => number }) {
  const t = usePlayerTime(store);
  return <div className="playhead" style={{ left: x(t) }} aria-hidden="true" />;
}

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
}) {
  const duration = Math.max(durationS, 1e-6);
  const frac = (s: number) => Math.max(0, Math.min(1, s / duration));
  // Hover (or keyboard focus) enlarges a tile: the thumbnail at once, the full-size frame when extracted.
  const [zoom, setZoom] = useState<Zoom | null>(null);
  const [full, setFull] = useState<Map<number, string>>(() => new Map());
  const [aspect, setAspect] = useState(16 / 9);
  const [trackW, setTrackW] = useState(0);
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

  // All strips share one lane (the track minus a margin of half the widest tile on each side),
  // so equal times sit at equal x on every strip and on the axis.
  const counts = strips.map((s) => s.tiles.length).filter((n) => n > 0);
  const widest = Math.min(MAX_TILE_W, trackW / Math.max(1, Math.min(...counts, 64)));
  const pad = Math.ceil(widest / 2) + 1;
  const lane = Math.max(1, trackW - 2 * pad);
  const x = (s: number) => pad + frac(s) * lane;
  // A span one frame long still gets a visible band.
  const band = (sp: EvidenceSpan) => ({ left: x(sp.startS), width: Math.max(2, x(sp.endS) - x(sp.startS)) });
  const markLine = markIn !== null && <div className="mark-in" style={{ left: x(markIn) }} aria-hidden="true" />;
  // Dense strips stagger their tiles over two or three rows (alternating in time order), so a
  // 64-frame strip gets tiles two to three times wider while each still sits at its own time.
  const rowsFor = (n: number) => (lane / Math.max(1, n) >= MIN_SINGLE_ROW_W ? 1 : (2 * lane) / Math.max(1, n) >= MIN_SINGLE_ROW_W ? 2 : 3);
  const tileW = (n: number) => {
    const r = rowsFor(n);
    return Math.max(4, Math.min(MAX_TILE_W, (r * lane) / Math.max(1, n)) - (r > 1 ? 2 : 3));
  };

  const step = tickStep(duration, Math.max(2, Math.floor(lane / 90)));
  const ticks: number[] = [];
  for (let t = 0; t <= duration + 1e-9 && ticks.length < 400; t += step) ticks.push(Math.round(t * 1000) / 1000);

  const hoverIndex = zoom?.tile.index ?? null;
  const enter = (config: string, tile: Tile) => (e: ReactMouseEvent<HTMLButtonElement>) =>
    setZoom({ config, tile, x: e.clientX, y: e.clientY, anchor: e.currentTarget.getBoundingClientRect() });
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
          <span className="muted">{full.has(zoom.tile.index) ? 'full size' : zoom.tile.approximate ? 'approximate' : 'loading full size…'}</span>
        </figcaption>
      </figure>,
      document.body,
    );

  return (
    <div className="strips" role="group" aria-label="Frame strips" ref={root}>
      <div className="strip strip-axis" aria-hidden="true">
        <div className="strip-label axis-label">time (s)</div>
        <div className="axis-track" ref={axisRef}>
          {ticks.map((t) => (
            <span key={t} className="tick" style={{ left: x(t) }}>
              {tickLabel(t, step)}
            </span>
          ))}
          {spans.map((sp, i) => (
            <div
              key={sp.id}
              className={`span-band${i === selectedSpan ? ' selected' : ''}`}
              style={band(sp)}
              data-span={i + 1}
              title={`span ${i + 1}${sp.label ? ` (${sp.label})` : ''}: ${sp.startS.toFixed(2)}–${sp.endS.toFixed(2)} s`}
            >
              <span className="span-number">{i + 1}</span>
            </div>
          ))}
          {markLine}
          <Playhead store={timeStore} x={x} />
        </div>
      </div>
      {strips.map((s) => {
        const o = outcomes.find((c) => c.key === s.config);
        const approx = s.tiles.filter((t) => t.approximate).length;
        // A config without frames (text only) has no sampler: say so instead of naming one.
        const textOnly = s.tiles.length === 0 && (s.sampler === null || o?.frames === 0);
        const w = tileW(s.tiles.length);
        const h = Math.round(w / aspect);
        const nRows = rowsFor(s.tiles.length);
        // Row of each tile: its rank in time order, modulo the strip's rows.
        const rank = new Map([...s.tiles].sort((a, b) => a.timeS - b.timeS || a.index - b.index).map((t, i) => [t.index, i % nRows]));
        const sampler = textOnly ? 'text only — no frames' : (s.sampler ?? 'sampler unknown');
        const verdict = o?.correct === true ? 'ok' : o?.correct === false ? 'bad' : 'none';
        return (
          <div className={`strip verdict-${verdict}`} key={s.config} role="group" aria-label={`Strip ${s.config}`} data-config={s.config} data-frames={s.tiles.length}>
            <div className="strip-label">
              <div className="strip-title">
                <strong>{s.config}</strong>
                {o && (
                  <span className={`answer ${verdict}`} aria-label={`Answer of ${s.config}`}>
                    {o.pred ?? '—'} {o.correct === true ? '✓' : o.correct === false ? '✗' : ''}
                  </span>
                )}
              </div>
              <span className="sampler" aria-label={`Sampler of ${s.config}`} title={sampler}>
                {sampler}
              </span>
              <span className="conf">
                {o && `conf ${fmt(o.confidence)} · margin ${fmt(o.margin)} · `}
                <span className="count">
                  {s.tiles.length} fr{approx > 0 ? ` · ${approx} ≈` : ''}
                </span>
              </span>
            </div>
            <div className="strip-track" data-rows={nRows} style={{ height: s.tiles.length > 0 ? nRows * (h + 2) + 6 : undefined }}>
              {s.tiles.map((t) => (
                <button
                  type="button"
                  key={t.index}
                  className={`tile${t.approximate ? ' approximate' : ''}${hoverIndex === t.index ? ' same-frame' : ''}`}
                  style={{ left: x(t.timeS), top: 3 + (rank.get(t.index) ?? 0) * (h + 2), width: w, height: h, marginLeft: -w / 2 }}
                  aria-label={`${s.config} frame ${t.index} at ${t.timeS.toFixed(2)} s${t.approximate ? ' (approximate)' : ''}`}
                  data-approximate={t.approximate ? 'true' : 'false'}
                  data-index={t.index}
                  onClick={() => onSeekFrame(t.index)}
                  onMouseEnter={enter(s.config, t)}
                  onMouseMove={move}
                  onMouseLeave={() => setZoom(null)}
                  onFocus={(e) => {
                    const r = e.currentTarget.getBoundingClientRect();
                    setZoom({ config: s.config, tile: t, x: r.right, y: r.top, anchor: r });
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
              ))}
              {s.tiles.length > 0 &&
                spans.map((sp, i) => {
                  // Coverage is the backend's (covered_by in docs/release-format.md "annotations/"), not recomputed from pixels here.
                  const covered = sp.coveredBy.includes(s.config);
                  return (
                    <div
                      key={sp.id}
                      className={`span-band ${covered ? 'covered' : 'missed'}${i === selectedSpan ? ' selected' : ''}`}
                      style={band(sp)}
                      data-span={i + 1}
                      data-covered={covered ? 'true' : 'false'}
                      aria-hidden="true"
                    />
                  );
                })}
              {s.tiles.length > 0 && markLine}
              {s.tiles.length === 0 && <span className="strip-empty">{textOnly ? 'text only — no frames' : 'no frames'}</span>}
              <Playhead store={timeStore} x={x} />
            </div>
          </div>
        );
      })}
      {preview}
    </div>
  );
}

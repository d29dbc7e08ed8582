import { useEffect, useRef, useState } from 'react';
import type { ConfigOutcome, Strip, Tile } from '../../shared/api/contract';

function fmt(n: number | null, digits = 2): string {
  return n === null || Number.isNaN(n) ? '—' : n.toFixed(digits);
}

/**
 * One strip per config, ordered by budget (the order the backend gives), tiles placed on one
 * shared time axis so a frame picked by several budgets lines up vertically; the player's
 * position is drawn as the same vertical line on every strip.
 */
export function Strips({
  strips,
  outcomes,
  durationS,
  time,
  onSeekFrame,
  onFullFrame,
}: {
  strips: Strip[];
  outcomes: ConfigOutcome[];
  durationS: number;
  time: number;
  onSeekFrame: (index: number) => void;
  /** URL of the full-size frame, extracted on demand (null when it cannot be). */
  onFullFrame?: (index: number) => Promise<string | null>;
}) {
  const pct = (s: number) => `${Math.max(0, Math.min(100, (100 * s) / Math.max(durationS, 1e-6)))}%`;
  // Hover (or keyboard focus) enlarges a tile: the thumbnail at once, the full-size frame when extracted.
  const [zoom, setZoom] = useState<{ config: string; tile: Tile } | null>(null);
  const [full, setFull] = useState<Map<number, string>>(() => new Map());
  const asked = useRef(new Set<number>());
  useEffect(() => {
    if (!zoom || !onFullFrame || asked.current.has(zoom.tile.index)) return;
    const k = zoom.tile.index;
    asked.current.add(k);
    void onFullFrame(k).then((url) => {
      if (url) setFull((m) => new Map(m).set(k, url));
      else asked.current.delete(k);
    });
  }, [zoom, onFullFrame]);
  return (
    <div className="strips" role="group" aria-label="Frame strips">
      {strips.map((s) => {
        const o = outcomes.find((c) => c.key === s.config);
        const approx = s.tiles.filter((t) => t.approximate).length;
        // A config without frames (text only) has no sampler: say so instead of naming one.
        const textOnly = s.tiles.length === 0 && (s.sampler === null || o?.frames === 0);
        return (
          <div className="strip" key={s.config} role="group" aria-label={`Strip ${s.config}`} data-config={s.config} data-frames={s.tiles.length}>
            <div className="strip-label">
              <strong>{s.config}</strong>
              <span className="sampler" aria-label={`Sampler of ${s.config}`}>
                {textOnly ? 'text only — no frames' : (s.sampler ?? 'sampler unknown')}
              </span>
              {o && (
                <span className={o.correct === true ? 'ok' : o.correct === false ? 'bad' : ''} aria-label={`Answer of ${s.config}`}>
                  {o.pred ?? '—'} {o.correct === true ? '✓' : o.correct === false ? '✗' : ''}
                </span>
              )}
              {o && (
                <span className="conf">
                  conf {fmt(o.confidence)} · margin {fmt(o.margin)}
                </span>
              )}
              <span className="count">
                {s.tiles.length} frames{approx > 0 ? ` · ${approx} approximate` : ''}
              </span>
            </div>
            <div className="strip-track">
              {s.tiles.map((t) => (
                <button
                  type="button"
                  key={t.index}
                  className={`tile${t.approximate ? ' approximate' : ''}`}
                  style={{ left: pct(t.timeS) }}
                  aria-label={`${s.config} frame ${t.index} at ${t.timeS.toFixed(2)} s${t.approximate ? ' (approximate)' : ''}`}
                  data-approximate={t.approximate ? 'true' : 'false'}
                  data-index={t.index}
                  onClick={() => onSeekFrame(t.index)}
                  onMouseEnter={() => setZoom({ config: s.config, tile: t })}
                  onMouseLeave={() => setZoom(null)}
                  onFocus={() => setZoom({ config: s.config, tile: t })}
                  onBlur={() => setZoom(null)}
                >
                  {t.url ? <img src={t.url} alt="" draggable={false} /> : <span className="tile-empty" />}
                  {t.approximate && <span className="approx-badge">≈</span>}
                </button>
              ))}
              {s.tiles.length === 0 && <span className="strip-empty">{textOnly ? 'text only — no frames' : 'no frames'}</span>}
              {zoom?.config === s.config && (
                <figure
                  className="tile-zoom"
                  style={{ left: pct(zoom.tile.timeS) }}
                  aria-label={`Enlarged frame ${zoom.tile.index}`}
                  data-full={full.has(zoom.tile.index) ? 'true' : 'false'}
                >
                  {(full.get(zoom.tile.index) ?? zoom.tile.url) && <img src={full.get(zoom.tile.index) ?? zoom.tile.url ?? ''} alt={`frame ${zoom.tile.index}`} />}
                  <figcaption>
                    frame {zoom.tile.index} · {zoom.tile.timeS.toFixed(2)} s{full.has(zoom.tile.index) ? ' · full size' : zoom.tile.approximate ? ' · approximate' : ' · loading full size…'}
                  </figcaption>
                </figure>
              )}
              <div className="playhead" style={{ left: pct(time) }} aria-hidden="true" />
            </div>
          </div>
        );
      })}
    </div>
  );
}

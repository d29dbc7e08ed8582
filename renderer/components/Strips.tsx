import type { ConfigOutcome, Strip } from '../../shared/api/contract';

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
}: {
  strips: Strip[];
  outcomes: ConfigOutcome[];
  durationS: number;
  time: number;
  onSeekFrame: (index: number) => void;
}) {
  const pct = (s: number) => `${Math.max(0, Math.min(100, (100 * s) / Math.max(durationS, 1e-6)))}%`;
  return (
    <div className="strips" role="group" aria-label="Frame strips">
      {strips.map((s) => {
        const o = outcomes.find((c) => c.key === s.config);
        const approx = s.tiles.filter((t) => t.approximate).length;
        return (
          <div className="strip" key={s.config} role="group" aria-label={`Strip ${s.config}`} data-config={s.config} data-frames={s.tiles.length}>
            <div className="strip-label">
              <strong>{s.config}</strong>
              <span className="sampler">{s.sampler ?? 'sampler unknown'}</span>
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
                >
                  {t.url ? <img src={t.url} alt="" draggable={false} /> : <span className="tile-empty" />}
                  {t.approximate && <span className="approx-badge">≈</span>}
                </button>
              ))}
              {s.tiles.length === 0 && <span className="strip-empty">{s.config === 'textonly' ? 'text only — no frames' : 'no frames'}</span>}
              <div className="playhead" style={{ left: pct(time) }} aria-hidden="true" />
            </div>
          </div>
        );
      })}
    </div>
  );
}

import type { Strip } from '../../shared/api/contract';
import { momentFrames } from './moment';
import { usePlayerTime, type TimeStore } from './time-store';

/**
 * One moment as each budget saw it: at the player's position, every config's nearest frame
 * side by side (moment.ts has the rule), with its config, frame index and time, and a mark on
 * frames the next-smaller budget did not take. It follows the playhead, so `,`/`.` and the jump
 * field choose the moment. Shown only while open: it re-renders with the player's time.
 */
export function MomentView({
  strips,
  timeStore,
  onSeekFrame,
  onClose,
}: {
  strips: readonly Strip[];
  timeStore: TimeStore;
  onSeekFrame: (index: number) => void;
  onClose: () => void;
}) {
  const t = usePlayerTime(timeStore);
  const frames = momentFrames(strips, t);
  return (
    <section className="moment-view" aria-label="Moment view" data-time={t.toFixed(3)}>
      <div className="moment-head">
        <h3>
          Moment at <span className="mono">{t.toFixed(2)} s</span>: each budget's nearest frame
        </h3>
        <span className="muted">
          <kbd>,</kbd>/<kbd>.</kbd> or <kbd>f</kbd> move the moment · <kbd>Shift+V</kbd> closes
        </span>
        <button type="button" onClick={onClose} aria-label="Close the moment view">
          ×
        </button>
      </div>
      {frames.length === 0 ? (
        <p className="muted">No config has frames yet.</p>
      ) : (
        <ul className="moment-frames">
          {frames.map((f) => (
            <li
              key={f.config}
              className={f.isNew ? 'new' : ''}
              data-config={f.config}
              data-index={f.tile.index}
              data-new={f.isNew === null ? 'smallest' : String(f.isNew)}
              aria-label={`Moment frame of ${f.config}`}
            >
              <button type="button" className="moment-image" onClick={() => onSeekFrame(f.tile.index)} aria-label={`${f.config}: seek to frame ${f.tile.index}`}>
                {f.tile.url ? <img src={f.tile.url} alt={`${f.config} frame ${f.tile.index}`} draggable={false} /> : <span className="tile-empty" />}
                {f.tile.approximate && <span className="approx-badge">≈</span>}
              </button>
              <div className="moment-caption">
                <strong className="mono">{f.config}</strong>
                <span>
                  frame <span className="moment-index">{f.tile.index}</span>
                </span>
                <span className="mono">{f.tile.timeS.toFixed(2)} s</span>
                <span className="moment-second">
                  <span className="muted mono" title="from the moment">
                    Δ{(f.tile.timeS - t >= 0 ? '+' : '') + (f.tile.timeS - t).toFixed(2)}s
                  </span>
                  {f.isNew === true && <span className="new-badge">new in this budget</span>}
                  {f.isNew === null && <span className="muted">smallest budget</span>}
                </span>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

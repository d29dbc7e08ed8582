import { usePlayerTime, type TimeStore } from './time-store';
import { useRenderCount } from './render-count';
import { forwardRef, useEffect, useImperativeHandle, useRef, useState } from 'react';
import videojs from 'video.js';
import 'video.js/dist/video-js.css';
import type { VideoInfo } from '../../shared/api/contract';

type Player = ReturnType<typeof videojs>;

export const RATES = [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4] as const;

export interface PlayerHandle {
  time(): number;
  frame(): number;
  seekFrame(k: number): void;
  seekTime(t: number): void;
  step(delta: number): void;
  togglePlay(): void;
  faster(): void;
  slower(): void;
  setLoop(span: { startS: number; endS: number } | null): void;
}

/** Frame k occupies [k/fps, (k+1)/fps); we seek to its middle so decoders land on it, not its neighbour. */
export function frameAt(t: number, fps: number): number {
  return Math.max(0, Math.floor(t * fps + 1e-6));
}

/** The frame/time readout: the one part of the player that follows every tick. */
function TimeReadout({ store, fps, lastFrame }: { store: TimeStore; fps: number; lastFrame: number }) {
  const t = usePlayerTime(store);
  const frame = frameAt(t, fps);
  const root = useRef<HTMLOutputElement>(null);
  useRenderCount(root);
  return (
    <output ref={root} aria-label="Frame and time" data-frame={frame} data-time={t.toFixed(3)}>
      frame {frame} / {lastFrame} · {t.toFixed(3)} s
    </output>
  );
}

export const VideoPlayer = forwardRef<PlayerHandle, { video: VideoInfo; timeStore: TimeStore }>(function VideoPlayer({ video, timeStore }, ref) {
  const holder = useRef<HTMLDivElement>(null);
  const root = useRef<HTMLDivElement>(null);
  useRenderCount(root);
  const playerRef = useRef<Player | null>(null);
  const loopRef = useRef<{ startS: number; endS: number } | null>(null);
  const [rate, setRate] = useState(1);
  const [paused, setPaused] = useState(true);
  const [loop, setLoopState] = useState<{ startS: number; endS: number } | null>(null);
  const [jump, setJump] = useState('');
  const jumpRef = useRef<HTMLInputElement>(null);
  const fps = video.fps;
  const lastFrame = Math.max(0, video.frameCount - 1);

  useEffect(() => {
    // video.js replaces the element it is given; create it here rather than in JSX so React
    // never owns a node video.js will remove (StrictMode mounts twice).
    const el = document.createElement('video');
    el.className = 'video-js vjs-fluid';
    el.setAttribute('aria-label', 'Item video');
    el.preload = 'auto';
    el.muted = true;
    holder.current?.appendChild(el);
    const player = videojs(el, { controls: true, fluid: true, playbackRates: [...RATES], preload: 'auto', sources: [{ src: video.url, type: video.mime }] });
    playerRef.current = player;
    let raf = 0;
    const tick = () => {
      const now = player.currentTime() ?? 0;
      const lp = loopRef.current;
      if (lp && now >= lp.endS) player.currentTime(lp.startS);
      timeStore.set(now);
      if (!player.paused()) raf = requestAnimationFrame(tick);
    };
    const update = () => {
      cancelAnimationFrame(raf);
      setPaused(player.paused());
      tick();
    };
    player.on(['timeupdate', 'seeked', 'play', 'pause', 'loadedmetadata'], update);
    player.on('ratechange', () => setRate(player.playbackRate() ?? 1));
    return () => {
      cancelAnimationFrame(raf);
      player.dispose();
      playerRef.current = null;
    };
  }, [video.url, video.mime, timeStore]);

  const seekTime = (s: number) => {
    const p = playerRef.current;
    if (!p) return;
    p.currentTime(Math.max(0, Math.min(video.durationS, s)));
  };
  const seekFrame = (k: number) => {
    const kk = Math.max(0, Math.min(lastFrame, Math.round(k)));
    seekTime((kk + 0.5) / fps);
  };
  const changeRate = (dir: 1 | -1) => {
    const p = playerRef.current;
    if (!p) return;
    const i = RATES.findIndex((r) => r >= (p.playbackRate() ?? 1) - 1e-9);
    const next = RATES[Math.max(0, Math.min(RATES.length - 1, (i < 0 ? RATES.length - 1 : i) + dir))] ?? 1;
    p.playbackRate(next);
  };

  useImperativeHandle(ref, () => ({
    time: () => playerRef.current?.currentTime() ?? 0,
    frame: () => frameAt(playerRef.current?.currentTime() ?? 0, fps),
    seekFrame,
    seekTime,
    step: (d) => {
      playerRef.current?.pause();
      seekFrame(frameAt(playerRef.current?.currentTime() ?? 0, fps) + d);
    },
    togglePlay: () => {
      const p = playerRef.current;
      if (!p) return;
      if (p.paused()) void p.play();
      else p.pause();
    },
    faster: () => changeRate(1),
    slower: () => changeRate(-1),
    setLoop: (span) => {
      loopRef.current = span;
      setLoopState(span);
      if (span) seekTime(span.startS);
    },
  }));

  const doJump = () => {
    const s = jump.trim();
    // "f123" or a bare integer is a frame; "12.5s", "1:02.5" or a decimal is a time.
    const frameMatch = /^f?(\d+)$/i.exec(s);
    if (frameMatch && !s.includes('.')) seekFrame(Number(frameMatch[1]));
    else {
      const parts = s.replace(/s$/i, '').split(':').map(Number);
      if (parts.some((n) => Number.isNaN(n))) return;
      seekTime(parts.reduce((acc, n) => acc * 60 + n, 0));
    }
    setJump('');
    // Hand the keyboard back to the shortcuts (step, mark in/out) right after a jump.
    jumpRef.current?.blur();
  };

  // Read at click time: this component does not re-render on every tick.
  const frame = () => frameAt(timeStore.get(), fps);
  return (
    <div className="player" ref={root}>
      <div ref={holder} className="player-holder" data-testid="player" />
      <div className="player-controls" role="group" aria-label="Player controls">
        <button type="button" aria-label={paused ? 'Play' : 'Pause'} onClick={() => (paused ? void playerRef.current?.play() : playerRef.current?.pause())}>
          {paused ? '▶' : '❚❚'}
        </button>
        <button type="button" aria-label="Previous frame" onClick={() => seekFrame(frame() - 1)}>
          ◀|
        </button>
        <button type="button" aria-label="Next frame" onClick={() => seekFrame(frame() + 1)}>
          |▶
        </button>
        <label>
          Speed
          <select aria-label="Playback speed" value={String(rate)} onChange={(e) => playerRef.current?.playbackRate(Number(e.target.value))}>
            {RATES.map((r) => (
              <option key={r} value={String(r)}>
                {r}×
              </option>
            ))}
          </select>
        </label>
        <TimeReadout store={timeStore} fps={fps} lastFrame={lastFrame} />
        <form
          onSubmit={(e) => {
            e.preventDefault();
            doJump();
          }}
        >
          <input
            ref={jumpRef}
            id="jump-input"
            aria-label="Jump to frame or time"
            placeholder="frame 120 or 4.5s"
            value={jump}
            onChange={(e) => setJump(e.target.value)}
            size={12}
          />
          <button type="submit">Jump</button>
        </form>
        {loop && (
          <span aria-label="Loop">
            looping {loop.startS.toFixed(2)}–{loop.endS.toFixed(2)} s
          </span>
        )}
      </div>
    </div>
  );
});

/**
 * The item view's one time axis (docs/architecture.md "The item view's time axis and moment view"): the window
 * of the video [startS, endS] that the strips, the evidence spans and the playheads are drawn
 * over. Pure functions, so keys, the wheel and the tests agree on what a zoom or a pan does.
 */

export interface TimeWindow {
  startS: number;
  endS: number;
}

/** Each zoom step halves (or doubles) the window's length. */
export const ZOOM_FACTOR = 2;
/** A pan moves the window by this share of its length. */
export const PAN_SHARE = 0.25;

/** The shortest window: half a second, or two frames of a very slow video. */
export function minWindowS(fps: number): number {
  return Math.max(0.5, 2 / Math.max(1e-6, fps));
}

export function wholeWindow(durationS: number): TimeWindow {
  return { startS: 0, endS: Math.max(durationS, 1e-6) };
}

/** The window shifted (not resized) to lie inside [0, duration], and no longer than it. */
export function clampWindow(w: TimeWindow, durationS: number, minS: number): TimeWindow {
  const d = Math.max(durationS, 1e-6);
  const len = Math.min(d, Math.max(Math.min(minS, d), w.endS - w.startS));
  let start = Math.max(0, Math.min(w.startS, d - len));
  if (!Number.isFinite(start)) start = 0;
  return { startS: start, endS: start + len };
}

/**
 * Zoomed by `factor` (< 1 zooms in) around `anchorS`, which keeps its place on screen: a key
 * zooms around the playhead, the wheel around the pointer.
 */
export function zoomWindow(w: TimeWindow, factor: number, anchorS: number, durationS: number, minS: number): TimeWindow {
  const len = w.endS - w.startS;
  const a = Math.max(w.startS, Math.min(w.endS, anchorS));
  const share = len > 0 ? (a - w.startS) / len : 0.5;
  const next = Math.min(Math.max(durationS, 1e-6), Math.max(Math.min(minS, durationS), len * factor));
  return clampWindow({ startS: a - share * next, endS: a - share * next + next }, durationS, minS);
}

/** Moved by `shares` of its length (negative: earlier). */
export function panWindow(w: TimeWindow, shares: number, durationS: number, minS: number): TimeWindow {
  const d = (w.endS - w.startS) * shares;
  return clampWindow({ startS: w.startS + d, endS: w.endS + d }, durationS, minS);
}

/** Fit to a span: the span with a quarter of its length of margin on each side (at least the shortest window). */
export function spanWindow(span: { startS: number; endS: number }, durationS: number, minS: number): TimeWindow {
  const len = Math.max(minS, (span.endS - span.startS) * 1.5);
  const mid = (span.startS + span.endS) / 2;
  return clampWindow({ startS: mid - len / 2, endS: mid + len / 2 }, durationS, minS);
}

/** The window moved so that `t` is inside it (kept as it is when `t` already is): the axis follows the playhead. */
export function follow(w: TimeWindow, t: number, durationS: number, minS: number): TimeWindow {
  if (t >= w.startS && t <= w.endS) return w;
  const len = w.endS - w.startS;
  // A page at a time, with the playhead a tenth in, so playback reads on.
  const start = t > w.endS ? t - len * 0.1 : t - len * 0.9;
  return clampWindow({ startS: start, endS: start + len }, durationS, minS);
}

export function isWhole(w: TimeWindow, durationS: number): boolean {
  return w.startS <= 1e-9 && w.endS >= durationS - 1e-9;
}

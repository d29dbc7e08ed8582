/**
 * Budget hints in result file names: VLMEvalKit's `<model>_<dataset>_64frame.xlsx`,
 * `…_1fps.xlsx`, or a plain `…_16f.json`.
 */
export interface NameBudget {
  frames: number | null;
  fps: number | null;
  /** The name's `_`-separated parts before the budget part (model, dataset, …). */
  before: string[];
  /** The parts after it (e.g. `subs`). */
  after: string[];
}

const FRAMES = /^(\d+)(?:frames?|f)$/i;
const FPS = /^(\d+(?:\.\d+)?)fps$/i;

export function budgetFromName(stem: string): NameBudget {
  const parts = stem.split('_');
  for (let i = parts.length - 1; i >= 1; i--) {
    const p = parts[i] as string;
    const f = FRAMES.exec(p);
    if (f) return { frames: Number(f[1]), fps: null, before: parts.slice(0, i), after: parts.slice(i + 1) };
    const s = FPS.exec(p);
    if (s) return { frames: null, fps: Number(s[1]), before: parts.slice(0, i), after: parts.slice(i + 1) };
  }
  return { frames: null, fps: null, before: parts, after: [] };
}

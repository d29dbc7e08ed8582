/**
 * The simulated "models" of the sample project. Each answers from the frames its sampler
 * really picks for a budget, so every flip in the sample has a visible cause in the strip.
 *
 * Rules (deterministic; there is no randomness beyond the samplers themselves):
 * - Perception: an event is seen when at least one sampled frame lies on it (frames
 *   round(start×fps) … round(end×fps) − 1, exactly the frames the video draws it on).
 *   Brief events fall between the frames of low budgets and are missed.
 * - Counting: each seen event counts once per started block of `trackFrames` sampled frames
 *   that show it — a model loses track of an object it sees for too many consecutive frames
 *   and counts it again. Dense budgets therefore over-count long events (terminal regressions).
 *   The chosen option is the one equal to the count, else the nearest (ties → the smaller).
 * - First / last: the seen event whose first sampled sighting is earliest / latest (ties →
 *   leftmost, then topmost); a colour that is not an option, or no sighting, falls back on the prior.
 * - Presence: the first option (in letter order) whose colour and shape the model saw.
 * - Prior (text only, and whenever the frames give no answer): counting → the option nearest 3
 *   (ties → smaller); colours → the earliest option in PRIOR_COLORS; shapes → likewise, squares
 *   before bars. When the prior happens to be right and the frames mislead, text is overwritten.
 * - Confidence: text 0.3; visual 0.3 + 0.65 × (1 − 0.5^e), e = sampled frames showing the evidence
 *   the answer rests on (0 when it fell back on the prior). Latency: base + perFrame × frames +
 *   (hash(item) mod 40) ms.
 */
import type { SamplingPolicy } from '../../shared/domain/types';
import { eventFrames, type SampleEvent, type Schedule } from './schedule';
import { LETTERS, PRIOR_COLORS, stableHash, type Letter, type OptionValue, type SampleItem } from './questions';

export interface SimModel {
  name: string;
  policy: SamplingPolicy;
  /** Consecutive sampled frames of one object after which the model counts it again. */
  trackFrames: number;
  latency: { baseMs: number; perFrameMs: number };
}

export const SIM_MODELS: readonly SimModel[] = [
  { name: 'SimQwen-7B', policy: 'uniform-linspace-round', trackFrames: 12, latency: { baseMs: 180, perFrameMs: 22 } },
  { name: 'SimLLaVA-7B', policy: 'uniform-linspace', trackFrames: 10, latency: { baseMs: 150, perFrameMs: 18 } },
  { name: 'SimInternVL-8B', policy: 'uniform-center', trackFrames: 16, latency: { baseMs: 210, perFrameMs: 26 } },
];

export interface SimAnswer {
  pred: Letter;
  confidence: number;
  latencyMs: number;
}

/** Number of sampled frames (duplicates included: the model saw them twice) that show an event. */
function framesOn(e: SampleEvent, sampled: readonly number[], fps: number): number {
  const [a, b] = eventFrames(e, fps);
  let k = 0;
  for (const x of sampled) if (x >= a && x < b) k++;
  return k;
}

function firstSighting(e: SampleEvent, sampled: readonly number[], fps: number): number {
  const [a, b] = eventFrames(e, fps);
  let best = Infinity;
  for (const x of sampled) if (x >= a && x < b && x < best) best = x;
  return best;
}

function priorIndex(values: readonly OptionValue[]): number {
  let best = 0;
  let bestScore = Infinity;
  values.forEach((v, i) => {
    const score = v.kind === 'count' ? Math.abs(v.n - 3) * 2 + (v.n > 3 ? 1 : 0) : PRIOR_COLORS.indexOf(v.color) * 2 + (v.kind === 'object' && v.shape === 'bar' ? 1 : 0);
    if (score < bestScore) {
      bestScore = score;
      best = i;
    }
  });
  return best;
}

function confidenceFor(evidenceFrames: number): number {
  return Math.round((0.3 + 0.65 * (1 - 0.5 ** evidenceFrames)) * 1e4) / 1e4;
}

/**
 * The model's answer to an item given the frames it saw (`null` = text only).
 */
export function simulateAnswer(model: SimModel, item: SampleItem, sampled: readonly number[] | null, schedule: Schedule): SimAnswer {
  const fps = schedule.fps;
  const values = item.optionValues;
  const frames = sampled?.length ?? 0;
  const latencyMs = model.latency.baseMs + model.latency.perFrameMs * frames + (stableHash(`${model.name}/${item.sampleId}`) % 40);
  let choice = -1;
  let evidence = 0;
  if (sampled) {
    const events = item.video.events;
    switch (item.spec.kind) {
      case 'count': {
        const { color, shape } = item.spec;
        let count = 0;
        for (const e of events) {
          if (e.color !== color || e.shape !== shape) continue;
          const k = framesOn(e, sampled, fps);
          evidence += k;
          count += Math.ceil(k / model.trackFrames);
        }
        let bestDist = Infinity;
        values.forEach((v, i) => {
          if (v.kind !== 'count') return;
          const d = Math.abs(v.n - count);
          if (d < bestDist) {
            bestDist = d;
            choice = i;
          }
        });
        break;
      }
      case 'first':
      case 'last': {
        const seen = events
          .map((e) => ({ e, at: firstSighting(e, sampled, fps) }))
          .filter((s) => Number.isFinite(s.at))
          .sort((p, q) => (item.spec.kind === 'first' ? p.at - q.at : q.at - p.at) || p.e.x - q.e.x || p.e.y - q.e.y);
        const pick = seen[0];
        if (pick) {
          choice = values.findIndex((v) => v.kind === 'color' && v.color === pick.e.color);
          if (choice >= 0) evidence = framesOn(pick.e, sampled, fps);
        }
        break;
      }
      case 'present': {
        choice = values.findIndex((v) => {
          if (v.kind !== 'object') return false;
          const k = events.filter((e) => e.color === v.color && e.shape === v.shape).reduce((s, e) => s + framesOn(e, sampled, fps), 0);
          if (k > 0) evidence = k;
          return k > 0;
        });
        break;
      }
    }
  }
  const usedPrior = choice < 0;
  if (usedPrior) choice = priorIndex(values);
  return {
    pred: LETTERS[choice]!,
    confidence: sampled === null ? 0.3 : confidenceFor(usedPrior ? 0 : evidence),
    latencyMs,
  };
}

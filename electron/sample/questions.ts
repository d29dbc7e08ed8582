/**
 * Questions, options and answers of the sample project, derived from the schedule so the
 * ground truth can never disagree with the videos.
 */
import { eventFrames, type Color, type Schedule, type SampleEvent, type SampleQuestion, type SampleVideo, type Shape } from './schedule';

export const LETTERS = ['A', 'B', 'C', 'D'] as const;
export type Letter = (typeof LETTERS)[number];

/** The colour order the simulated models fall back on without visual evidence (their "prior"). */
export const PRIOR_COLORS: readonly Color[] = ['red', 'blue', 'green', 'yellow', 'white', 'orange', 'purple', 'cyan'];
const SHAPES: readonly Shape[] = ['square', 'bar'];

export type OptionValue = { kind: 'count'; n: number } | { kind: 'color'; color: Color } | { kind: 'object'; color: Color; shape: Shape };

export interface SampleItem {
  sampleId: string;
  video: SampleVideo;
  spec: SampleQuestion;
  question: string;
  options: string[];
  optionValues: OptionValue[];
  answer: Letter;
  taskType: string;
}

export const TASK_TYPES: Record<SampleQuestion['kind'], string> = {
  count: 'Counting Problem',
  first: 'Temporal Reasoning',
  last: 'Temporal Reasoning',
  present: 'Object Recognition',
};

/** FNV-1a: a stable per-item number, used to spread correct answers over the letters. */
export function stableHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export function plural(shape: Shape): string {
  return `${shape}s`;
}

/** The event that starts first (earliest frame; ties → leftmost, then topmost). */
export function firstEvent(events: readonly SampleEvent[], fps: number): SampleEvent {
  return [...events].sort((a, b) => eventFrames(a, fps)[0] - eventFrames(b, fps)[0] || a.x - b.x || a.y - b.y)[0]!;
}

/** The event that starts last (latest frame; ties → leftmost, then topmost). */
export function lastEvent(events: readonly SampleEvent[], fps: number): SampleEvent {
  return [...events].sort((a, b) => eventFrames(b, fps)[0] - eventFrames(a, fps)[0] || a.x - b.x || a.y - b.y)[0]!;
}

function placeAnswer<T>(answer: T, distractors: T[], position: number): T[] {
  const out = [...distractors.slice(0, 3)];
  out.splice(position, 0, answer);
  return out;
}

function optionText(v: OptionValue): string {
  if (v.kind === 'count') return String(v.n);
  if (v.kind === 'color') return v.color;
  return `a ${v.color} ${v.shape}`;
}

export function deriveItems(schedule: Schedule): SampleItem[] {
  const items: SampleItem[] = [];
  for (const video of schedule.videos) {
    video.questions.forEach((spec, qi) => {
      const sampleId = `${video.id}-q${qi + 1}`;
      const pos = stableHash(sampleId) % 4;
      let question: string;
      let values: OptionValue[];
      let answerIndex: number;
      switch (spec.kind) {
        case 'count': {
          const a = video.events.filter((e) => e.color === spec.color && e.shape === spec.shape).length;
          const p = Math.min(pos, a); // counts below zero make no option
          values = [0, 1, 2, 3].map((k) => ({ kind: 'count', n: a - p + k }));
          answerIndex = p;
          question = `How many ${spec.color} ${plural(spec.shape)} appear in the video?`;
          break;
        }
        case 'first':
        case 'last': {
          const truth = (spec.kind === 'first' ? firstEvent : lastEvent)(video.events, schedule.fps).color;
          // Distractors: the video's other colours first (the plausible mistakes), then the palette.
          const inVideo = PRIOR_COLORS.filter((c) => c !== truth && video.events.some((e) => e.color === c));
          const others = PRIOR_COLORS.filter((c) => c !== truth && !inVideo.includes(c));
          const distractors = [...inVideo, ...others].slice(0, 3).map((color): OptionValue => ({ kind: 'color', color }));
          values = placeAnswer<OptionValue>({ kind: 'color', color: truth }, distractors, pos);
          answerIndex = pos;
          question = `What colour is the ${spec.kind} shape to appear in the video?`;
          break;
        }
        case 'present': {
          const ev = video.events[spec.event]!;
          const absent: OptionValue[] = [];
          const start = stableHash(`${sampleId}/absent`) % PRIOR_COLORS.length;
          for (let k = 0; k < PRIOR_COLORS.length && absent.length < 3; k++) {
            const color = PRIOR_COLORS[(start + k) % PRIOR_COLORS.length]!;
            for (const shape of SHAPES) {
              if (absent.length < 3 && !video.events.some((e) => e.color === color && e.shape === shape)) {
                absent.push({ kind: 'object', color, shape });
                break;
              }
            }
          }
          values = placeAnswer<OptionValue>({ kind: 'object', color: ev.color, shape: ev.shape }, absent, pos);
          answerIndex = pos;
          question = 'Which of these shapes appears in the video?';
          break;
        }
      }
      items.push({
        sampleId,
        video,
        spec,
        question,
        options: values.map(optionText),
        optionValues: values,
        answer: LETTERS[answerIndex]!,
        taskType: TASK_TYPES[spec.kind],
      });
    });
  }
  return items;
}

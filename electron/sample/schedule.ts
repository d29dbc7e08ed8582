/**
 * The embedded sample project's event schedule (assets/sample/schedule.json): every video,
 * the coloured shapes it shows and when, and the questions asked about it. Videos, questions,
 * answers and the simulated models' responses are all derived from this one file.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';

const Color = z.enum(['red', 'blue', 'green', 'yellow', 'white', 'orange', 'purple', 'cyan']);
export type Color = z.infer<typeof Color>;
const Shape = z.enum(['square', 'bar']);
export type Shape = z.infer<typeof Shape>;

const EventSchema = z.object({
  color: Color,
  shape: Shape,
  x: z.int().min(0),
  y: z.int().min(0),
  /** Seconds; the event is visible on frames round(start×fps) … round(end×fps) − 1 (Math.round: halves round up). */
  start: z.number().min(0),
  end: z.number().positive(),
});
export type SampleEvent = z.infer<typeof EventSchema>;

const QuestionSchema = z.discriminatedUnion('kind', [
  /** "How many <color> <shape>s appear?" */
  z.object({ kind: z.literal('count'), color: Color, shape: Shape }),
  /** "What colour is the first (last) shape to appear?" */
  z.object({ kind: z.literal('first') }),
  z.object({ kind: z.literal('last') }),
  /** "Which of these shapes appears?" — the event at index `event` against three absent ones. */
  z.object({ kind: z.literal('present'), event: z.int().min(0) }),
]);
export type SampleQuestion = z.infer<typeof QuestionSchema>;

const VideoSchema = z.object({
  id: z.string().regex(/^[a-z0-9-]+$/),
  durationS: z.int().positive(),
  events: z.array(EventSchema).min(1),
  questions: z.array(QuestionSchema).min(1),
});
export type SampleVideo = z.infer<typeof VideoSchema>;

export const ScheduleSchema = z
  .object({
    split: z.string().min(1),
    width: z.int().positive(),
    height: z.int().positive(),
    fps: z.int().positive(),
    gop: z.int().positive(),
    background: z.string().regex(/^0x[0-9A-Fa-f]{6}$/),
    palette: z.record(Color, z.string().regex(/^0x[0-9A-Fa-f]{6}$/)),
    shapes: z.record(Shape, z.object({ w: z.int().positive(), h: z.int().positive() })),
    videos: z.array(VideoSchema).min(1),
  })
  .superRefine((s, ctx) => {
    const ids = new Set<string>();
    s.videos.forEach((v, vi) => {
      if (ids.has(v.id)) ctx.addIssue({ code: 'custom', path: ['videos', vi, 'id'], message: `duplicate video id ${v.id}` });
      ids.add(v.id);
      v.events.forEach((e, ei) => {
        const [sf, ef] = eventFrames(e, s.fps);
        const size = s.shapes[e.shape];
        if (ef <= sf) ctx.addIssue({ code: 'custom', path: ['videos', vi, 'events', ei], message: 'event shows on no frame (end ≤ start after rounding to frames)' });
        if (ef > v.durationS * s.fps) ctx.addIssue({ code: 'custom', path: ['videos', vi, 'events', ei, 'end'], message: 'event ends after the video' });
        if (size && (e.x + size.w > s.width || e.y + size.h > s.height)) ctx.addIssue({ code: 'custom', path: ['videos', vi, 'events', ei], message: 'shape leaves the frame' });
      });
      v.questions.forEach((q, qi) => {
        if (q.kind === 'present' && q.event >= v.events.length) ctx.addIssue({ code: 'custom', path: ['videos', vi, 'questions', qi, 'event'], message: 'no such event' });
      });
    });
  });
export type Schedule = z.infer<typeof ScheduleSchema>;

/** Frames [first, endExclusive) on which an event is drawn. */
export function eventFrames(e: Pick<SampleEvent, 'start' | 'end'>, fps: number): [number, number] {
  return [Math.round(e.start * fps), Math.round(e.end * fps)];
}

export const SCHEDULE_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../assets/sample/schedule.json');

/** Reads and validates the schedule; errors name the file and the JSON path of the bad field. */
export function loadSchedule(file: string = SCHEDULE_PATH): { schedule: Schedule; text: string } {
  const text = readFileSync(file, 'utf8');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file}: not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const parsed = ScheduleSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${file}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return { schedule: parsed.data, text };
}

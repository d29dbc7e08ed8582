import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mcqaMetrics } from '../../../shared/engine/mcqa';
import { sampleFrames } from '../../../shared/samplers/index';
import { buildSampleBatches, SAMPLE_FRAME_BUDGETS, sampleConfigKey } from '../../../electron/sample/build-batches';
import { deriveItems } from '../../../electron/sample/questions';
import { loadSchedule, type Schedule } from '../../../electron/sample/schedule';
import { SIM_MODELS, simulateAnswer } from '../../../electron/sample/simulated-models';
import { matrixFromBatch, totals } from './sample-metrics';
import { tempDir } from '../../temp-dir';

const { schedule, text } = loadSchedule();

/** A one-video schedule for hand-checked rules. */
function tiny(events: Schedule['videos'][number]['events'], questions: Schedule['videos'][number]['questions'], durationS = 30): Schedule {
  return { ...schedule, videos: [{ id: 'hand', durationS, events, questions }] };
}

describe('sample items', () => {
  const items = deriveItems(schedule);

  it('derives a dozen videos × two MCQA questions with four options and a letter answer', () => {
    expect(schedule.videos.length).toBeGreaterThanOrEqual(12);
    expect(items).toHaveLength(schedule.videos.reduce((s, v) => s + v.questions.length, 0));
    for (const it of items) {
      expect(it.options).toHaveLength(4);
      expect(new Set(it.options).size).toBe(4);
      expect(['A', 'B', 'C', 'D']).toContain(it.answer);
    }
    expect(new Set(items.map((i) => i.taskType))).toEqual(new Set(['Counting Problem', 'Temporal Reasoning', 'Object Recognition']));
    // answers are spread over the letters, not always A
    expect(new Set(items.map((i) => i.answer)).size).toBeGreaterThanOrEqual(3);
  });

  it('answers follow the schedule', () => {
    const q = items.find((i) => i.sampleId === 'v01-red-squares-q1')!;
    expect(q.question).toBe('How many red squares appear in the video?');
    expect(q.options[['A', 'B', 'C', 'D'].indexOf(q.answer)]).toBe('3');
    const first = items.find((i) => i.sampleId === 'v03-first-flash-q1')!;
    expect(first.options[['A', 'B', 'C', 'D'].indexOf(first.answer)]).toBe('yellow');
    const present = items.find((i) => i.sampleId === 'v02-blue-bars-q2')!;
    expect(present.options[['A', 'B', 'C', 'D'].indexOf(present.answer)]).toBe('a green square');
    // the three other options really are absent from that video
    const video = schedule.videos.find((v) => v.id === 'v02-blue-bars')!;
    for (const opt of present.options.filter((o) => o !== 'a green square')) {
      expect(video.events.some((e) => `a ${e.color} ${e.shape}` === opt)).toBe(false);
    }
  });

  it('rejects a schedule with a bad field, naming the file and the path', () => {
    const dir = tempDir('flipbook-sched-');
    const bad = JSON.parse(text) as { videos: { events: { end: number }[] }[] };
    bad.videos[1]!.events[0]!.end = 999;
    const file = path.join(dir, 'schedule.json');
    fs.writeFileSync(file, JSON.stringify(bad));
    expect(() => loadSchedule(file)).toThrow(/schedule\.json: videos\.1\.events\.0\.end: event ends after the video/);
    fs.writeFileSync(file, '{');
    expect(() => loadSchedule(file)).toThrow(/schedule\.json: not valid JSON/);
  });
});

describe('simulated models', () => {
  const qwen = SIM_MODELS.find((m) => m.name === 'SimQwen-7B')!;

  it('miss a brief event that falls between sampled frames and catch it at a denser budget', () => {
    // a 0.4 s flash at 12.1–12.5 s (frames 303–312) of a 30 s video
    const s = tiny([{ color: 'red', shape: 'square', x: 10, y: 10, start: 12.1, end: 12.5 }], [{ kind: 'count', color: 'red', shape: 'square' }]);
    const [item] = deriveItems(s);
    const at = (n: number) => sampleFrames(qwen.policy, { total: 750, n });
    expect(at(8).some((x) => x >= 303 && x < 313)).toBe(false);
    expect(at(64).some((x) => x >= 303 && x < 313)).toBe(true);
    const opt = (n: number) => item!.options[['A', 'B', 'C', 'D'].indexOf(simulateAnswer(qwen, item!, at(n), s).pred)];
    expect(opt(64)).toBe('1');
    expect(opt(8)).not.toBe('1');
  });

  it('count a long event twice once it fills more than trackFrames sampled frames', () => {
    // one red square for 10 s: 64 frames over 30 s put ~21 samples on it (> 12), 32 frames ~10
    const s = tiny([{ color: 'red', shape: 'square', x: 10, y: 10, start: 5, end: 15 }], [{ kind: 'count', color: 'red', shape: 'square' }]);
    const [item] = deriveItems(s);
    const count = (n: number) => {
      const frames = sampleFrames(qwen.policy, { total: 750, n });
      return item!.options[['A', 'B', 'C', 'D'].indexOf(simulateAnswer(qwen, item!, frames, s).pred)];
    };
    expect(count(32)).toBe('1');
    expect(count(64)).toBe('2');
  });

  it('answer text-only questions from the prior', () => {
    const s = tiny(
      [
        { color: 'green', shape: 'square', x: 10, y: 10, start: 1, end: 3 },
        { color: 'red', shape: 'square', x: 100, y: 10, start: 5, end: 8 },
      ],
      [{ kind: 'first' }],
    );
    const [item] = deriveItems(s);
    const a = simulateAnswer(qwen, item!, null, s);
    expect(item!.options[['A', 'B', 'C', 'D'].indexOf(a.pred)]).toBe('red'); // the prior's favourite colour
    expect(a.confidence).toBe(0.3);
    const seen = simulateAnswer(qwen, item!, sampleFrames(qwen.policy, { total: 750, n: 16 }), s);
    expect(item!.options[['A', 'B', 'C', 'D'].indexOf(seen.pred)]).toBe('green');
    expect(seen.confidence).toBeGreaterThan(0.3);
  });
});

describe('sample batches', () => {
  const batches = buildSampleBatches(schedule, text);
  const items = deriveItems(schedule);

  it('one batch per model with every (item, config) cell and the frames each sampler picked', () => {
    expect(batches.map((b) => b.responses[0]!.model)).toEqual(SIM_MODELS.map((m) => m.name));
    for (const [k, b] of batches.entries()) {
      const model = SIM_MODELS[k]!;
      expect(b.responses).toHaveLength(items.length * SAMPLE_FRAME_BUDGETS.length);
      expect(b.configs.map((c) => c.key)).toEqual(['textonly', '8f_151k', '16f_151k', '32f_151k', '64f_151k']);
      for (const c of b.configs) expect(c.sampling.policy).toBe(c.frames === 0 ? null : model.policy);
      expect(b.configs.find((c) => c.key === '64f_151k')!.pixelCount).toBe(151_000);
      for (const r of b.responses) {
        const item = items.find((i) => i.sampleId === r.sampleId)!;
        const frames = b.configs.find((c) => c.key === r.config)!.frames;
        if (frames === 0) expect(r.frameIndices).toBeNull();
        else expect(r.frameIndices).toEqual(sampleFrames(model.policy, { total: item.video.durationS * schedule.fps, n: frames }));
        expect(r.correct).toBe(r.pred === item.answer);
        expect(r.groundTruth).toBe(item.answer);
      }
      expect(b.items.every((i) => i.videoFile === `${i.videoId}.mp4` && i.durationS !== null && i.taskType)).toBe(true);
    }
    expect(sampleConfigKey(0)).toBe('textonly');
  });

  it('is deterministic', () => {
    expect(JSON.stringify(buildSampleBatches(schedule, text))).toBe(JSON.stringify(batches));
  });

  it('shows what Flipbook is for: terminal regressions, visual confusion and text overwrite, per the engine', () => {
    const matrices = batches.map(matrixFromBatch);
    const t = totals(matrices);
    console.log(`sample (from batches): ${JSON.stringify(t)}`);
    expect(t.terminalRegressions).toBeGreaterThanOrEqual(3);
    expect(t.visuallyConfused).toBeGreaterThanOrEqual(3);
    expect(t.textOverwritten).toBeGreaterThanOrEqual(1);
    // and accuracy still rises with frames on average, as in the paper: the flips hide in the mean
    for (const m of matrices) {
      const acc = mcqaMetrics(m).accuracy;
      expect(acc['64f_151k']!).toBeGreaterThan(acc['textonly']!);
    }
  });
});

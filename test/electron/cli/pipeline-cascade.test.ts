/**
 * The confidence cascade on the release pipeline's own timed rows (docs/metrics.md §5,
 * docs/formats.md "The release's pipeline files"): files in the shape `code/cascade.py` reads
 * (run_inference.py rows plus `config_key`, `wall_clock_s`, `gpu_mem_gb`; video-mme-scalegrid
 * commit f3e595d) go through `flipbook import`; at every threshold the engine's shared and
 * unshared latency equal an independent reimplementation of cascade.py's rule (stop at a stage
 * before the last whose `base_margin` ≥ θ; shared latency adds only each stage's increase over
 * the previous; no_share adds every stage), and its shared frame cost equals the union of the
 * visited stages' `selected_frame_indices` (written here by a reimplementation of
 * run_inference.py's uniform selection over the cache frames). Seeded (seed printed).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProject } from '../../../electron/store/project';
import { cascade } from '../../../shared/engine/cascade';
import { tempDir } from '../../temp-dir';
import { flipbook } from './cli-helpers';

const SEED = 5031;
const STAGES = [16, 32, 128];

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** run_inference.py's select_frame_indices(…, "uniform"): Python's round is half-to-even. */
function uniformIndices(total: number, n: number): number[] {
  if (n >= total) return Array.from({ length: total }, (_, i) => i);
  if (n === 1) return [0];
  const roundHalfEven = (x: number) => {
    const f = Math.floor(x);
    const d = x - f;
    return d > 0.5 || (d === 0.5 && f % 2 === 1) ? f + 1 : f;
  };
  return [...new Set(Array.from({ length: n }, (_, i) => Math.min(total - 1, roundHalfEven((i * (total - 1)) / (n - 1)))))].sort((a, b) => a - b);
}

interface Timed {
  config_key: string;
  sample_id: string;
  base_margin: number;
  wall_clock_s: number;
  gpu_mem_gb: number;
  correct: boolean;
  indices: number[];
}

/** cascade.py's main() for one θ and mode, over rows_by_cfg[stage][sample_id], reimplemented. */
function cascadePy(rowsByCfg: Map<string, Map<string, Timed>>, stages: string[], theta: number, mode: 'shared' | 'no_share') {
  const ids = [...rowsByCfg.get(stages[0]!)!.keys()].filter((id) => stages.every((s) => rowsByCfg.get(s)!.has(id))).sort();
  const latencies: number[] = [];
  const frameCosts: number[] = [];
  const unsharedFrames: number[] = [];
  let correct = 0;
  for (const sid of ids) {
    const visited: Timed[] = [];
    for (let idx = 0; idx < stages.length; idx++) {
      const row = rowsByCfg.get(stages[idx]!)!.get(sid)!;
      visited.push(row);
      if (idx < stages.length - 1 && row.base_margin >= theta) break;
    }
    let lat = 0;
    if (mode === 'shared') visited.forEach((r, i) => (lat += i === 0 ? r.wall_clock_s : Math.max(0, r.wall_clock_s - visited[i - 1]!.wall_clock_s)));
    else for (const r of visited) lat += r.wall_clock_s;
    latencies.push(lat);
    frameCosts.push(new Set(visited.flatMap((r) => r.indices)).size);
    unsharedFrames.push(visited.reduce((s, r) => s + Number(r.config_key.replace('f', '')), 0));
    if (visited[visited.length - 1]!.correct) correct++;
  }
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  return { n: ids.length, avgLatency: mean(latencies), avgSharedFrames: mean(frameCosts), avgUnsharedFrames: mean(unsharedFrames), accuracy: correct / ids.length };
}

describe("cascade on the release pipeline's timed rows", () => {
  it("the engine's shared frame cost and latency equal a reimplementation of cascade.py at every threshold", () => {
    console.log(`pipeline-cascade: rows from mulberry32 seed ${SEED}`);
    const rnd = mulberry32(SEED);
    const dir = tempDir('fb-pipeline-cascade-');
    const rowsByCfg = new Map<string, Map<string, Timed>>();
    const files: string[] = [];
    const N = 80;
    const totals = Array.from({ length: N }, () => 40 + Math.floor(rnd() * 260));
    for (const frames of STAGES) {
      const key = `${frames}f`;
      const rows = new Map<string, Timed>();
      const lines: string[] = [];
      for (let i = 0; i < N; i++) {
        // One item lacks its 32f row: cascade.py's shared ids (and the engine's complete items) leave it out.
        if (frames === 32 && i === 7) continue;
        const id = `${String(i + 1).padStart(3, '0')}-1`;
        const gt = 'ABCD'[i % 4]!;
        const right = rnd() < 0.45 + frames / 400;
        const pred = right ? gt : 'ABCD'[(i + 1) % 4]!;
        const top = 0.3 + rnd() * 0.7;
        const second = rnd() * (1 - top) * 0.9;
        const probs: Record<string, number> = { A: 0, B: 0, C: 0, D: 0 };
        probs[pred] = top;
        const other = 'ABCD'.replace(pred, '')[0]!;
        probs[other] = second;
        const margin = Math.round((top - second) * 1e4) / 1e4; // repeats, as real margins do
        const indices = uniformIndices(totals[i]!, frames);
        const wall = Math.round((0.2 + frames * 0.025 + rnd() * 0.8) * 1e6) / 1e6;
        rows.set(id, { config_key: key, sample_id: id, base_margin: margin, wall_clock_s: wall, gpu_mem_gb: 16 + frames / 32, correct: right, indices });
        lines.push(
          JSON.stringify({
            sample_id: id,
            video_id: String(i + 1).padStart(3, '0'),
            correct_letter: gt,
            task_type: 'Counting Problem',
            duration_category: 'short',
            base_pred: pred,
            base_correct: right ? 1 : 0,
            base_option_probs: probs,
            base_margin: margin,
            final_pred: pred,
            final_correct: right ? 1 : 0,
            cached_frame_count: indices.length,
            cached_sample_fps: indices.length / totals[i]!,
            cached_raw_fps: 1.0,
            prompt_style: 'cached',
            inference_mode: 'prob',
            subtitle_mode: 'none',
            subtitle_char_count: 0,
            frame_sampling: 'uniform',
            frame_sampling_seed: 42,
            selected_frame_indices: indices,
            config_key: key,
            wall_clock_s: wall,
            gpu_mem_gb: 16 + frames / 32,
          }),
        );
      }
      rowsByCfg.set(key, rows);
      const f = path.join(dir, `timed_${key}.jsonl`);
      fs.writeFileSync(f, `${lines.join('\n')}\n`);
      files.push(f);
    }
    const project = path.join(dir, 'p.flipbook');
    const r = flipbook('import', ...files, '--project', project, '--model', 'Qwen2.5-VL-7B', '--split', 'V1_short');
    expect(r.code, r.stderr).toBe(0);

    const p = openProject(project, { readOnly: true });
    const m = p.loadMatrix('Qwen2.5-VL-7B', 'V1_short');
    p.close();
    const budgets = STAGES.map((f) => `${f}f_151k`);
    const res = cascade(m, { budgets, reference: '128f_151k' });
    expect(res.signal).toBe('margin');
    expect(res.latencyRecorded).toBe(true);
    expect(res.sharedCostBasis).toEqual({ frameSets: N - 1, nestedAssumption: 0 });
    const stages = STAGES.map((f) => `${f}f`);
    // Every distinct margin is a threshold of the sweep (plus +∞: every item runs to the last stage).
    let compared = 0;
    for (const pt of res.sweep) {
      const theta = Number.isFinite(pt.tau) ? pt.tau : Number.POSITIVE_INFINITY;
      const shared = cascadePy(rowsByCfg, stages, theta, 'shared');
      const noShare = cascadePy(rowsByCfg, stages, theta, 'no_share');
      expect(res.n).toBe(shared.n);
      expect(Math.abs(pt.meanLatencyShared! / 1000 - shared.avgLatency)).toBeLessThan(1e-9);
      expect(Math.abs(pt.meanLatencyUnshared! / 1000 - noShare.avgLatency)).toBeLessThan(1e-9);
      expect(Math.abs(pt.meanSharedCost - shared.avgSharedFrames)).toBeLessThan(1e-9);
      expect(Math.abs(pt.meanUnsharedCost - shared.avgUnsharedFrames)).toBeLessThan(1e-9);
      expect(Math.abs(pt.accuracy - shared.accuracy)).toBeLessThan(1e-12);
      compared++;
    }
    expect(compared).toBeGreaterThan(50);
    // Uniform selections are not nested for every T, so the shared cost is not always frames(b_j*).
    const last = res.sweep[res.sweep.length - 1]!;
    expect(last.meanSharedCost).toBeLessThan(128);
  });
});

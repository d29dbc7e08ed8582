/**
 * A synthetic MLVU generation run for the tests of continuous flows (docs/metrics.md §4):
 * MLVU's own metadata layout (`8_sub_scene.json`, `9_summary.json`: `video, duration,
 * question, answer, question_type`, `scoring_points` for sub-scene; 4-space indent, as
 * JUNJIE99/MLVU `data/*.json`) and one prediction file per budget in the layout MLVU's
 * generation evaluation reads (`evaluation/generation_evaluation/evaluate_summary.py`: a list of
 * `{video_name, Q, A, pred}`, named `<frames>_<task>_all.json`). The texts are synthetic,
 * drawn from a seeded stream; `expectedFlows` computes every §4 figure from the files alone,
 * independently of the engine (its own Token-F1, ladder and rules).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { f1Independent, seeded } from './independent-f1';

export const BUDGETS = [8, 16, 32] as const;
export const EPS = 0.05;
export const MODEL = 'ToyGen-7B';

const WORDS = 'chef guest door table boat whale camera dog park friend kettle rice bread window street car bicycle rain umbrella market'.split(' ');

export interface MlvuRun {
  dir: string;
  meta: string[];
  /** Per budget: the prediction file and the import options naming its model and config. */
  results: { path: string; frames: number; opts: { model: string; config: string } }[];
}

export function writeMlvuGeneration(dir: string, n = 24, seed = 20250301): MlvuRun {
  const r = seeded(seed);
  const pick = () => WORDS[Math.floor(r() * WORDS.length)]!;
  const sentence = (k: number) => Array.from({ length: k }, pick).join(' ');
  mkdirSync(dir, { recursive: true });
  const sub: Record<string, unknown>[] = [];
  const sum: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const answer = `The ${sentence(6 + (i % 5))}.`;
    if (i % 2 === 0) {
      sub.push({
        video: `subPlot_synth_${i}.mp4`,
        duration: 1200 + i,
        question: `Please describe the synthetic scene ${i} where the ${pick()} appears.`,
        answer,
        question_type: 'subPlot',
        scoring_points: [answer],
      });
    } else {
      sum.push({ video: `summary_synth_${i}.mp4`, duration: 600 + i, question: 'Please summarize this video, including its main content.', answer, question_type: 'summary' });
    }
  }
  const meta = [path.join(dir, '8_sub_scene.json'), path.join(dir, '9_summary.json')];
  writeFileSync(meta[0]!, JSON.stringify(sub, null, 4));
  writeFileSync(meta[1]!, JSON.stringify(sum, null, 4));
  const all = [...sub, ...sum];
  const results = BUDGETS.map((frames) => {
    const rows = all.map((m) => {
      // A prediction keeps a random share of the answer's words and adds others: scores spread over [0, 1].
      const ref = String(m.answer).replace(/\.$/, '').split(' ');
      const keep = ref.filter(() => r() < 0.2 + 0.7 * r());
      const pred = [...keep, ...Array.from({ length: Math.floor(r() * 4) }, pick)].join(' ');
      return { video_name: m.video, Q: m.question, A: m.answer, pred: pred === '' ? 'nothing happens' : pred };
    });
    const p = path.join(dir, `${frames}_gen_all.json`);
    writeFileSync(p, JSON.stringify(rows, null, 4));
    return { path: p, frames, opts: { model: MODEL, config: `${frames}f` } };
  });
  return { dir, meta, results };
}

export interface ExpectedItem {
  /** MLVU's key: `<video stem>#<first 8 hex of sha1(question)>` (docs/formats.md "How items join"). */
  key: { video: string; question: string };
  scores: number[];
  pattern: string;
  cls: string;
  regressed: boolean;
  terminalRegression: boolean;
  improvedOn: string[];
  regressedOn: string[];
}

export interface ExpectedFlows {
  configs: string[];
  items: ExpectedItem[];
  mean: number[];
  bestFixed: string;
  oracleGapPts: number;
  regressionRate: number;
  terminalRegressionRate: number;
  transitions: { from: string; to: string; improved: number; regressed: number; netPts: number }[];
  classes: Record<string, number>;
  /** Smallest distance between any score difference and ε: the rules are unambiguous when this is well above float noise. */
  margin: number;
}

/** Every §4 figure of the run, from its files: configs by frames (one resolution, no text). */
export function expectedFlows(run: MlvuRun): ExpectedFlows {
  const meta = run.meta.flatMap((p) => JSON.parse(readFileSync(p, 'utf8')) as { video: string; question: string; answer: string }[]);
  const preds = run.results.map((x) => JSON.parse(readFileSync(x.path, 'utf8')) as { video_name: string; Q: string; pred: string }[]);
  const configs = run.results.map((x) => `${x.frames}f`);
  const G = configs.length;
  let margin = Infinity;
  const items: ExpectedItem[] = meta.map((m) => {
    const scores = preds.map((rows) => f1Independent(rows.find((x) => x.video_name === m.video && x.Q === m.question)!.pred, [m.answer]));
    for (let a = 0; a < G; a++) for (let b = 0; b < G; b++) margin = Math.min(margin, Math.abs(Math.abs(scores[b]! - scores[a]!) - EPS));
    let pattern = '';
    for (let j = 1; j < G; j++) {
      const d = scores[j]! - scores[j - 1]!;
      pattern += d > EPS ? '+' : d < -EPS ? '\u2212' : '=';
    }
    const up = pattern.includes('+');
    const down = pattern.includes('\u2212');
    const cls = up && down ? 'oscillating' : up ? 'monotonic_increasing' : down ? 'monotonic_decreasing' : 'flat';
    // Every lower frame count is a lower budget (one resolution): any a < b counts.
    let regressed = false;
    for (let a = 0; a < G; a++) for (let b = a + 1; b < G; b++) if (scores[b]! < scores[a]! - EPS) regressed = true;
    const best = Math.max(...scores);
    const improvedOn: string[] = [];
    const regressedOn: string[] = [];
    for (let j = 1; j < G; j++) {
      const name = `${configs[j - 1]}>${configs[j]}`;
      if (scores[j]! > scores[j - 1]! + EPS) improvedOn.push(name);
      if (scores[j]! < scores[j - 1]! - EPS) regressedOn.push(name);
    }
    return { key: { video: m.video, question: m.question }, scores, pattern, cls, regressed, terminalRegression: scores[G - 1]! < best - EPS, improvedOn, regressedOn };
  });
  const N = items.length;
  const mean = configs.map((_, j) => items.reduce((s, x) => s + x.scores[j]!, 0) / N);
  let bestAt = 0;
  for (let j = 1; j < G; j++) if (mean[j]! > mean[bestAt]!) bestAt = j;
  const oracle = items.reduce((s, x) => s + Math.max(...x.scores), 0) / N;
  const transitions = configs.slice(1).map((to, k) => {
    const from = configs[k]!;
    const name = `${from}>${to}`;
    return {
      from,
      to,
      improved: items.filter((x) => x.improvedOn.includes(name)).length,
      regressed: items.filter((x) => x.regressedOn.includes(name)).length,
      netPts: 100 * (mean[k + 1]! - mean[k]!),
    };
  });
  const classes: Record<string, number> = {};
  for (const x of items) classes[x.cls] = (classes[x.cls] ?? 0) + 1;
  return {
    configs,
    items,
    mean,
    bestFixed: configs[bestAt]!,
    oracleGapPts: 100 * (oracle - mean[bestAt]!),
    regressionRate: items.filter((x) => x.regressed).length / N,
    terminalRegressionRate: items.filter((x) => x.terminalRegression).length / N,
    transitions,
    classes,
    margin,
  };
}

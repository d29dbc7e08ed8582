/**
 * A synthetic AVSD test set and three systems' results, in the challenge's own layouts
 * (docs/formats.md "AVSD"; shapes from dialogtekgeek/AudioVisualSceneAwareDialog
 * `code/avsd_generate.py`, `utils/get_annotation.py`, `utils/get_hypotheses.py` and
 * ictnlp/DSTC8-AVSD `generate.py`, `dataset.py`):
 * - `test_set4DSTC7-AVSD.json`: `{dialogs: [{image_id, summary, caption, dialog: [{question,
 *   answer}]}]}`, each dialog ending at the turn to answer, `__UNDISCLOSED__`;
 * - `test_set4DSTC7-AVSD_multiref.json`: COCO captions (`info, licenses, type, images: [{name:
 *   "<image_id>_<turn>", id}], annotations: [{image_id, id, caption}]`), several per turn;
 * - results `<model>_AVSD_<N>frame.json`, `{dialogs: [{image_id, dialog}]}` (json.dump indent 4):
 *   8 and 32 frames as avsd_generate.py writes them (the whole dialog, the hypothesis at the
 *   evaluated turn, the earlier turns as given), 16 frames as the DSTC8 system writes them (only
 *   the evaluated turn, `dialog[-1:]`).
 * Texts are synthetic, from a seeded stream. `expectedScores` is an independent Token-F1 of
 * every (dialog, turn, budget) against the best of its references, from the files alone.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { f1Independent, seeded } from './independent-f1';

export const AVSD_MODEL = 'ToyAVSD-7B';
export const AVSD_BUDGETS = [8, 16, 32] as const;
const WORDS = 'man woman kitchen sofa door laptop phone cup towel broom window book blanket shelf shoes chair table bag'.split(' ');

export interface AvsdRun {
  dir: string;
  reference: string;
  multiref: string;
  results: { path: string; frames: number }[];
}

interface Dlg {
  image_id: string;
  summary: string;
  caption: string;
  dialog: { question: string; answer: string }[];
}

export function writeAvsdRun(dir: string, dialogs = 5, seed = 7): AvsdRun {
  const r = seeded(seed);
  const pick = () => WORDS[Math.floor(r() * WORDS.length)]!;
  const words = (k: number) => Array.from({ length: k }, pick).join(' ');
  mkdirSync(dir, { recursive: true });
  const ref: Dlg[] = [];
  const multi = new Map<string, string[]>();
  for (let i = 0; i < dialogs; i++) {
    const id = `SYN${String(i).padStart(2, '0')}`;
    const turns = 3 + (i % 3);
    const dialog = Array.from({ length: turns }, (_, t) => ({
      question: `is there a ${pick()} in turn ${t} ?`,
      answer: t === turns - 1 ? '__UNDISCLOSED__' : `yes , the ${words(3)} is there`,
    }));
    ref.push({ image_id: id, summary: `a synthetic summary of ${words(6)}`, caption: `a person ${words(5)} .`, dialog });
    multi.set(
      `${id}_${turns - 1}`,
      Array.from({ length: 3 }, () => `the ${words(2 + Math.floor(r() * 4))} is on the ${pick()}`),
    );
  }
  const reference = path.join(dir, 'test_set4DSTC7-AVSD.json');
  writeFileSync(reference, JSON.stringify({ dialogs: ref }, null, 4));
  const images: { name: string; id: number }[] = [];
  const annotations: { image_id: number; id: number; caption: string }[] = [];
  let img = 1;
  let cap = 1;
  for (const [name, caps] of multi) {
    images.push({ name, id: img });
    for (const c of caps) annotations.push({ image_id: img, id: cap++, caption: c });
    img++;
  }
  const multiref = path.join(dir, 'test_set4DSTC7-AVSD_multiref.json');
  writeFileSync(multiref, JSON.stringify({ info: {}, licenses: [], type: 'captions', annotations, images }, null, 4));
  const results = AVSD_BUDGETS.map((frames) => {
    const out = ref.map((d) => {
      const last = d.dialog.length - 1;
      const refs = multi.get(`${d.image_id}_${last}`)!;
      const base = refs[Math.floor(r() * refs.length)]!.split(' ');
      const hyp = [...base.filter(() => r() < 0.3 + 0.6 * r()), ...Array.from({ length: Math.floor(r() * 3) }, pick)].join(' ') || 'i can not tell';
      const dialog = d.dialog.map((t, j) => (j === last ? { question: t.question, answer: hyp } : { ...t }));
      return { image_id: d.image_id, dialog: frames === 16 ? dialog.slice(-1) : dialog };
    });
    const p = path.join(dir, `${AVSD_MODEL}_AVSD_${frames}frame.json`);
    writeFileSync(p, JSON.stringify({ dialogs: out }, null, 4));
    return { path: p, frames };
  });
  return { dir, reference, multiref, results };
}

export interface AvsdExpected {
  sampleId: string;
  question: string;
  history: { question: string; answer: string }[];
  references: string[];
  /** Per budget (AVSD_BUDGETS order): generated text and its Token-F1 against the best reference. */
  texts: string[];
  scores: number[];
}

/** Every evaluated turn of the run, from its files. */
export function expectedAvsd(run: AvsdRun): AvsdExpected[] {
  const ref = (JSON.parse(readFileSync(run.reference, 'utf8')) as { dialogs: Dlg[] }).dialogs;
  const mr = JSON.parse(readFileSync(run.multiref, 'utf8')) as { images: { name: string; id: number }[]; annotations: { image_id: number; caption: string }[] };
  const res = run.results.map((x) => (JSON.parse(readFileSync(x.path, 'utf8')) as { dialogs: { image_id: string; dialog: { answer: string }[] }[] }).dialogs);
  return ref.map((d) => {
    const last = d.dialog.length - 1;
    const name = `${d.image_id}_${last}`;
    const id = mr.images.find((i) => i.name === name)!.id;
    const references = mr.annotations.filter((a) => a.image_id === id).map((a) => a.caption);
    const texts = res.map((dialogs) => dialogs.find((x) => x.image_id === d.image_id)!.dialog.at(-1)!.answer);
    return { sampleId: name, question: d.dialog[last]!.question, history: d.dialog.slice(0, last), references, texts, scores: texts.map((t) => f1Independent(t, references)) };
  });
}

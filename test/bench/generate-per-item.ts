/**
 * A realistic ~145k-row release per_item.csv for the benchmark: 5 models × 4 splits ×
 * ~1.2k items × ~6 configs, release-style ids, letters, source tags, one mixed-resolution
 * config and a few missing cells. Deterministic (mulberry32 seed), so runs are comparable.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { mulberry32 } from '../../shared/engine/prng';

const MODELS = ['InternVL3-8B', 'InternVL3.5-8B', 'LLaVA-NeXT-Video-7B', 'Qwen2.5-VL-7B', 'Qwen3-VL-8B'];
const SPLITS = [
  { name: 'V1_short', n: 1290, id: (i: number) => `${String(Math.floor(i / 3) + 1).padStart(3, '0')}-${(i % 3) + 1}` },
  { name: 'V1_medium', n: 1290, id: (i: number) => `${String(Math.floor(i / 3) + 301).padStart(3, '0')}-${(i % 3) + 1}` },
  { name: 'V2_medium', n: 1290, id: (i: number) => `${String(Math.floor(i / 3) + 1).padStart(3, '0')}-${(i % 3) + 1}` },
  { name: 'MLVU', n: 1310, id: (i: number) => `mlvu-${String(i).padStart(6, '0')}` },
];
const CONFIGS: { key: string; frames: number; pixels: number; skill: number }[] = [
  { key: 'textonly', frames: 0, pixels: 0, skill: 0.35 },
  { key: '16f_151k', frames: 16, pixels: 150528, skill: 0.6 },
  { key: '32f_151k', frames: 32, pixels: 150528, skill: 0.64 },
  { key: '64f_151k', frames: 64, pixels: 150528, skill: 0.67 },
  { key: '128f_151k', frames: 128, pixels: 150528, skill: 0.68 },
  { key: '32f_302k', frames: 32, pixels: 301056, skill: 0.66 },
];

export interface GeneratedCsv {
  path: string;
  rows: number;
  bytes: number;
}

/** `scale` multiplies the items per split (10 → ~1.45M rows); 1 is the bench's input. */
export function generatePerItemCsv(path: string, seed = 20240611, scale = 1): GeneratedCsv {
  const rnd = mulberry32(seed);
  const letters = 'ABCD';
  const lines: string[] = ['sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note'];
  for (const split of SPLITS) {
    const gts: string[] = [];
    const difficulty: number[] = [];
    const n = split.n * scale;
    for (let i = 0; i < n; i++) {
      gts.push(letters[Math.floor(rnd() * 4)] as string);
      difficulty.push(rnd() - 0.5);
    }
    for (const model of MODELS) {
      const llava = model.startsWith('LLaVA');
      for (let i = 0; i < n; i++) {
        const id = split.id(i);
        const gt = gts[i] as string;
        for (const c of CONFIGS) {
          // LLaVA's 32-frame context ceiling: no 64f/128f runs (as in the release).
          if (llava && c.frames > 32) continue;
          // A few missing cells, as real runs have.
          if (rnd() < 0.002) continue;
          const p = c.skill - (difficulty[i] as number) * 0.8;
          const ok = rnd() < p;
          const pred = ok ? gt : (letters[(letters.indexOf(gt) + 1 + Math.floor(rnd() * 3)) % 4] as string);
          const note = llava ? 'llava_native_processor;max_32f' : '';
          lines.push(`${id},${model},${split.name},${c.key},${c.frames},${c.pixels},${pred},${gt},${ok ? 1 : 0},official:${model}:${split.name}:${c.key},${note}`);
        }
      }
    }
  }
  // Written in pieces: at scale 10 one joined string would pass V8's string length limit.
  const fd = openSync(path, 'w');
  let bytes = 0;
  for (let i = 0; i < lines.length; i += 100_000) {
    const chunk = lines.slice(i, i + 100_000).join('\n') + '\n';
    bytes += writeSync(fd, chunk);
  }
  closeSync(fd);
  return { path, rows: lines.length - 1, bytes };
}

// `node --import tsx test/bench/generate-per-item.ts <path>`: the bench writes its input from a
// child process, so that the generator's garbage (145k line strings and their 15 MB join) is
// not in the heap whose import and export it then times.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const out = process.argv[2];
  if (!out) throw new Error('usage: generate-per-item.ts <path> [scale]');
  process.stdout.write(JSON.stringify(generatePerItemCsv(out, undefined, Number(process.argv[3] ?? 1))) + '\n');
}

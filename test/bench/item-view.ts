/**
 * `npm run bench -- item-view`: the renderer's first chunk (first-chunk.ts), built as a release
 * does, for this tree and, in the same run, for the tree before (FLIPBOOK_BENCH_BEFORE, by
 * default the commit before the views became lazy; docs/performance.md "The renderer's first
 * chunk").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildRendererInto, firstChunk } from './first-chunk';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The last commit whose renderer was one chunk. */
const BEFORE_COMMIT = process.env.FLIPBOOK_BENCH_BEFORE ?? 'a5094d9^';

export async function benchItemView(): Promise<Record<string, unknown>> {
  const work = mkdtempSync(path.join(tmpdir(), 'flipbook-bench-item-view-'));
  try {
    const nowOut = path.join(work, 'now');
    buildRendererInto(ROOT, nowOut);
    const now = firstChunk(nowOut);
    // The tree before, from the repository's history, built in the same run with the same node_modules.
    const tree = path.join(work, 'before');
    spawnSync('mkdir', ['-p', tree]);
    const archive = spawnSync('git', ['-C', ROOT, 'archive', '--format=tar', BEFORE_COMMIT], { maxBuffer: 1 << 30 });
    let before: ReturnType<typeof firstChunk> | null = null;
    if (archive.status === 0) {
      const untar = spawnSync('tar', ['-x', '-C', tree], { input: archive.stdout });
      if (untar.status !== 0) throw new Error(`tar: ${untar.stderr.toString().slice(0, 400)}`);
      spawnSync('ln', ['-s', path.join(ROOT, 'node_modules'), path.join(tree, 'node_modules')]);
      const out = path.join(work, 'before-out');
      buildRendererInto(tree, out);
      before = firstChunk(out);
    }
    return {
      first_chunk: {
        ...now,
        before: before ? { commit: BEFORE_COMMIT, ...before } : { commit: BEFORE_COMMIT, measured: 'not in this run: the history lacks the commit' },
        vs_before: before ? Math.round((now.bytes / before.bytes) * 1000) / 1000 : null,
        target_bytes: 500_000,
        meets_target: now.bytes < 500_000,
      },
      time_to_exact_strips: { measured: 'not yet: the cold long item is not benched (docs/performance.md)' },
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

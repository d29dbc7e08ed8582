/**
 * `npm run bench -- item-view`:
 * - the renderer's first chunk (first-chunk.ts), built as a release does, for this tree and, in
 *   the same run, for the tree before (FLIPBOOK_BENCH_BEFORE, by default the commit before the
 *   views became lazy; docs/performance.md "The renderer's first chunk");
 * - the item view's time to exact strips for a cold long item (long-item.ts): the 6-minute 720p
 *   item of test/long-video-fixture.ts opened in Chromium at 1280×720 on a fresh project (fresh
 *   frame cache), for this tree and for the tree before the long-video item view
 *   (FLIPBOOK_BENCH_STRIPS_BEFORE), each served by its own `flipbook serve` and renderer, in
 *   the same run (docs/performance.md "The item view on a long video").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildRendererInto, firstChunk } from './first-chunk';
import { timeToExactStrips } from './long-item';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The last commit whose renderer was one chunk. */
const BEFORE_COMMIT = process.env.FLIPBOOK_BENCH_BEFORE ?? 'a5094d9^';
/** The last commit before the item view was built for long videos (zoomable axis, one-row strips, moment view). */
const STRIPS_BEFORE_COMMIT = process.env.FLIPBOOK_BENCH_STRIPS_BEFORE ?? 'd36a313';

/** The tree at `commit` from the repository's history, unpacked into `dir` with this checkout's node_modules; false when the history lacks it. */
function treeAt(commit: string, dir: string): boolean {
  spawnSync('mkdir', ['-p', dir]);
  const archive = spawnSync('git', ['-C', ROOT, 'archive', '--format=tar', commit], { maxBuffer: 1 << 30 });
  if (archive.status !== 0) return false;
  const untar = spawnSync('tar', ['-x', '-C', dir], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`tar: ${untar.stderr.toString().slice(0, 400)}`);
  spawnSync('ln', ['-s', path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules')]);
  return true;
}

export async function benchItemView(): Promise<Record<string, unknown>> {
  const work = mkdtempSync(path.join(tmpdir(), 'flipbook-bench-item-view-'));
  try {
    const nowOut = path.join(work, 'now');
    buildRendererInto(ROOT, nowOut);
    const now = firstChunk(nowOut);
    // The tree before, from the repository's history, built in the same run with the same node_modules.
    const tree = path.join(work, 'before');
    let before: ReturnType<typeof firstChunk> | null = null;
    if (treeAt(BEFORE_COMMIT, tree)) {
      const out = path.join(work, 'before-out');
      buildRendererInto(tree, out);
      before = firstChunk(out);
    }
    const strips = await stripsFigure(work, nowOut);
    return {
      first_chunk: {
        ...now,
        before: before ? { commit: BEFORE_COMMIT, ...before } : { commit: BEFORE_COMMIT, measured: 'not in this run: the history lacks the commit' },
        vs_before: before ? Math.round((now.bytes / before.bytes) * 1000) / 1000 : null,
        target_bytes: 500_000,
        meets_target: now.bytes < 500_000,
      },
      time_to_exact_strips: strips,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Time to exact strips, cold, for this tree and the tree before, alternated (before, now,
 * before, now) so that neither always runs second on a warm disk; the median of each.
 */
async function stripsFigure(work: string, nowRenderer: string): Promise<Record<string, unknown>> {
  const runs = Number(process.env.FLIPBOOK_BENCH_STRIPS_RUNS ?? 3);
  const beforeTree = path.join(work, 'strips-before');
  const haveBefore = treeAt(STRIPS_BEFORE_COMMIT, beforeTree);
  let beforeRenderer: string | null = null;
  if (haveBefore) {
    beforeRenderer = path.join(work, 'strips-before-out');
    buildRendererInto(beforeTree, beforeRenderer);
  }
  const now: Awaited<ReturnType<typeof timeToExactStrips>>[] = [];
  const old: Awaited<ReturnType<typeof timeToExactStrips>>[] = [];
  for (let k = 0; k < runs; k++) {
    if (beforeRenderer) {
      process.stderr.write(`item-view: cold long item, tree before (${STRIPS_BEFORE_COMMIT}), run ${k + 1}/${runs}…\n`);
      old.push(await timeToExactStrips(beforeTree, beforeRenderer, path.join(work, `long-before-${k}`)));
    }
    process.stderr.write(`item-view: cold long item, this tree, run ${k + 1}/${runs}…\n`);
    now.push(await timeToExactStrips(ROOT, nowRenderer, path.join(work, `long-now-${k}`)));
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const m = Math.floor(s.length / 2);
    return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
  };
  const nowMs = median(now.map((r) => r.exactMs));
  const beforeMs = old.length > 0 ? median(old.map((r) => r.exactMs)) : null;
  return {
    what: 'Chromium 1280×720 opens the item view of a 6-minute 1280×720 item (8, 16, 32 and 64 frames: 120 tiles) on a fresh project (fresh frame cache): ms from navigation start until every tile of every strip shows its exact frame; median of the runs',
    item: now[0]?.item,
    ms: nowMs,
    runs: now,
    before:
      beforeMs === null ? { commit: STRIPS_BEFORE_COMMIT, measured: 'not in this run: the history lacks the commit' } : { commit: STRIPS_BEFORE_COMMIT, ms: beforeMs, runs: old },
    vs_before: beforeMs === null ? null : Math.round((nowMs / beforeMs) * 1000) / 1000,
  };
}

/**
 * The moment view's rule (docs/architecture.md "The item view's time axis and moment view"): for each config, the frame
 * it took nearest in time to the moment; a tie goes to the earlier frame. A frame is "new in
 * this budget" when the previous config with frames (the next-smaller budget, in the order the
 * backend gives the strips) did not take it.
 */
import type { Strip, Tile } from '../../shared/api/contract';

export interface MomentFrame {
  config: string;
  tile: Tile;
  /** null for the smallest budget with frames: there is nothing smaller to compare with. */
  isNew: boolean | null;
}

/** The tile nearest to `t` (ties: the earlier time, then the lower frame index); null when there is none. */
export function nearestTile(tiles: readonly Tile[], t: number): Tile | null {
  let best: Tile | null = null;
  for (const tile of tiles) {
    if (best === null) {
      best = tile;
      continue;
    }
    const d = Math.abs(tile.timeS - t);
    const db = Math.abs(best.timeS - t);
    if (d < db - 1e-9 || (Math.abs(d - db) <= 1e-9 && (tile.timeS < best.timeS || (tile.timeS === best.timeS && tile.index < best.index)))) best = tile;
  }
  return best;
}

/**
 * For each config, the frames of the previous config with frames in the strips' order (the
 * next-smaller budget): null for a config with no frames (text only) and for the smallest
 * budget with frames, which have nothing to compare with. The one place the "new in this
 * budget" rule lives: the moment view and the strips' marks both read it.
 */
export function previousBudgetFrames(strips: readonly Strip[]): Map<string, ReadonlySet<number> | null> {
  const out = new Map<string, ReadonlySet<number> | null>();
  let previous: Set<number> | null = null;
  for (const s of strips) {
    if (s.tiles.length === 0) {
      out.set(s.config, null);
      continue;
    }
    out.set(s.config, previous);
    previous = new Set(s.tiles.map((x) => x.index));
  }
  return out;
}

/** The frame indices of each config that the previous config with frames did not take (empty for the smallest budget and text-only configs). */
export function newFrames(strips: readonly Strip[]): Map<string, ReadonlySet<number>> {
  const prev = previousBudgetFrames(strips);
  return new Map(
    strips.map((s) => {
      const p = prev.get(s.config) ?? null;
      return [s.config, new Set(p === null ? [] : s.tiles.map((t) => t.index).filter((k) => !p.has(k)))];
    }),
  );
}

/** One entry per config that has frames, in the strips' order. */
export function momentFrames(strips: readonly Strip[], t: number): MomentFrame[] {
  const prev = previousBudgetFrames(strips);
  const out: MomentFrame[] = [];
  for (const s of strips) {
    const tile = nearestTile(s.tiles, t);
    if (tile === null) continue;
    const previous = prev.get(s.config) ?? null;
    out.push({ config: s.config, tile, isNew: previous === null ? null : !previous.has(tile.index) });
  }
  return out;
}

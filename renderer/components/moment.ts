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

/** One entry per config that has frames, in the strips' order. */
export function momentFrames(strips: readonly Strip[], t: number): MomentFrame[] {
  const out: MomentFrame[] = [];
  let previous: Set<number> | null = null;
  for (const s of strips) {
    const tile = nearestTile(s.tiles, t);
    if (tile === null) continue;
    out.push({ config: s.config, tile, isNew: previous === null ? null : !previous.has(tile.index) });
    previous = new Set(s.tiles.map((x) => x.index));
  }
  return out;
}

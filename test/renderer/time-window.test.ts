import { describe, expect, it } from 'vitest';
import { clampWindow, follow, isWhole, minWindowS, panWindow, spanWindow, wholeWindow, zoomWindow } from '../../renderer/components/time-window';
import { momentFrames, nearestTile, newFrames } from '../../renderer/components/moment';
import type { Strip, Tile } from '../../shared/api/contract';

const D = 360;
const MIN = minWindowS(2);

describe('the item view time axis window', () => {
  it('zooms around an anchor that keeps its place, within the video and never shorter than the shortest window', () => {
    const w = zoomWindow(wholeWindow(D), 0.5, 90, D, MIN);
    expect(w).toEqual({ startS: 45, endS: 225 });
    // 90 s stays at a quarter of the window.
    expect((90 - w.startS) / (w.endS - w.startS)).toBeCloseTo(0.25, 9);
    let z = w;
    for (let k = 0; k < 20; k++) z = zoomWindow(z, 0.5, 90, D, MIN);
    expect(z.endS - z.startS).toBeCloseTo(MIN, 9);
    expect(z.startS).toBeLessThanOrEqual(90);
    expect(z.endS).toBeGreaterThanOrEqual(90);
    // Zooming out past the whole video gives the whole video.
    expect(isWhole(zoomWindow(w, 8, 90, D, MIN), D)).toBe(true);
    // Zooming out near the end shifts the window back inside the video rather than cut it short.
    expect(zoomWindow({ startS: 350, endS: 360 }, 4, 359, D, MIN)).toEqual({ startS: 320, endS: 360 });
  });

  it('pans by shares of its length and stops at the ends', () => {
    expect(panWindow({ startS: 100, endS: 110 }, 0.25, D, MIN)).toEqual({ startS: 102.5, endS: 112.5 });
    expect(panWindow({ startS: 1, endS: 11 }, -0.25, D, MIN)).toEqual({ startS: 0, endS: 10 });
    expect(panWindow({ startS: 350, endS: 358 }, 1, D, MIN)).toEqual({ startS: 352, endS: 360 });
    expect(clampWindow({ startS: -5, endS: 400 }, D, MIN)).toEqual({ startS: 0, endS: D });
  });

  it('fits a span with margins and follows the playhead a page at a time', () => {
    const w = spanWindow({ startS: 200, endS: 201 }, D, MIN);
    expect(w.startS).toBeCloseTo(199.75, 9);
    expect(w.endS).toBeCloseTo(201.25, 9);
    const inside = { startS: 100, endS: 110 };
    expect(follow(inside, 105, D, MIN)).toBe(inside);
    expect(follow(inside, 112, D, MIN)).toEqual({ startS: 111, endS: 121 });
    expect(follow(inside, 50, D, MIN)).toEqual({ startS: 41, endS: 51 });
  });
});

describe('the moment view rule', () => {
  const tile = (index: number, timeS: number): Tile => ({ config: 'c', index, timeS, url: null, approximate: false });
  it('picks the nearest frame by time; a tie goes to the earlier frame', () => {
    const ts = [tile(30, 15), tile(10, 5), tile(20, 10)];
    expect(nearestTile(ts, 7.4)?.index).toBe(10);
    expect(nearestTile(ts, 7.6)?.index).toBe(20);
    expect(nearestTile(ts, 7.5)?.index).toBe(10);
    expect(nearestTile([tile(20, 10), tile(10, 5)], 7.5)?.index).toBe(10);
    expect(nearestTile([], 3)).toBeNull();
  });

  it('marks frames the next-smaller budget with frames did not take; text-only configs are skipped', () => {
    const strip = (config: string, tiles: Tile[]): Strip => ({ config, sampler: null, indices: tiles.map((t) => t.index), timesS: tiles.map((t) => t.timeS), tiles });
    const m = momentFrames(
      [strip('textonly', []), strip('2f', [tile(0, 0), tile(10, 5)]), strip('4f', [tile(0, 0), tile(4, 2), tile(8, 4), tile(10, 5)]), strip('8f', [tile(4, 2), tile(5, 2.5)])],
      2.4,
    );
    expect(m.map((x) => [x.config, x.tile.index, x.isNew])).toEqual([
      ['2f', 0, null],
      ['4f', 4, true],
      ['8f', 5, true],
    ]);
    const at2 = momentFrames([strip('4f', [tile(0, 0), tile(4, 2)]), strip('8f', [tile(4, 2), tile(5, 2.5)])], 2);
    expect(at2.map((x) => x.isNew)).toEqual([null, false]);
  });

  it('the strips mark the same frames: those the next-smaller budget with frames lacks, none on the smallest or a text-only config', () => {
    const strip = (config: string, tiles: Tile[]): Strip => ({ config, sampler: null, indices: tiles.map((t) => t.index), timesS: tiles.map((t) => t.timeS), tiles });
    const marks = newFrames([
      strip('2f', [tile(0, 0), tile(10, 5)]),
      strip('textonly', []),
      strip('4f', [tile(0, 0), tile(4, 2), tile(8, 4), tile(10, 5)]),
      strip('8f', [tile(4, 2), tile(5, 2.5), tile(10, 5)]),
    ]);
    expect([...marks].map(([c, set]) => [c, [...set].sort((a, b) => a - b)])).toEqual([
      ['2f', []],
      ['textonly', []],
      // Compared with 2f: the text-only config between them is skipped.
      ['4f', [4, 8]],
      ['8f', [5]],
    ]);
  });
});

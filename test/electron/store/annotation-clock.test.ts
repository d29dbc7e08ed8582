/**
 * The clock of local annotation events (electron/store/annotation-clock.ts, docs/team-sync.md
 * §3 "Clocks"), against a clock the test sets: a new stamp comes after every event the project
 * holds, never later than the clock plus the bound, and strictly after every earlier local
 * stamp — also after a reopen.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventClock } from '../../../electron/store/annotation-clock';

const BOUND = 5 * 60_000;
const T0 = Date.parse('2026-12-06T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
let now = T0;
const setNow = (ms: number) => (now = ms);
const ms = (stamp: string) => Date.parse(stamp);

describe('the local event clock', () => {
  vi.spyOn(Date, 'now').mockImplementation(() => now);
  afterEach(() => setNow(T0));

  it('stamps at the clock, and a second edit in the same millisecond one millisecond later, without waiting', () => {
    // The clock never moves here: an edit that waited for it would never return.
    const c = new EventClock(null);
    expect(ms(c.next())).toBe(T0);
    expect(ms(c.next())).toBe(T0 + 1);
    expect(ms(c.next())).toBe(T0 + 2);
  });

  it('stamps after the latest event the project holds when it opens, and after one merged or written elsewhere later', () => {
    expect(ms(new EventClock(iso(T0 + 60_000)).next())).toBe(T0 + 60_001);
    const c = new EventClock(iso(T0 - 1000));
    expect(ms(c.next())).toBe(T0);
    c.saw(iso(T0 + 30_000));
    // An older event seen afterwards changes nothing.
    c.saw(iso(T0 + 10_000));
    expect(ms(c.next())).toBe(T0 + 30_001);
    c.resync(iso(T0 + 40_000));
    c.resync(iso(T0 + 20_000));
    c.resync(null);
    expect(ms(c.next())).toBe(T0 + 40_001);
  });

  it('follows an event beyond the bound only up to the clock plus the bound, and keeps following the clock', () => {
    const c = new EventClock(null);
    c.saw(iso(T0 + 86_400_000));
    expect(ms(c.next())).toBe(T0 + BOUND);
    setNow(T0 + 1000);
    expect(ms(c.next())).toBe(T0 + 1000 + BOUND);
  });

  it('at the bound, the next edit in the same millisecond waits for the clock; a reopened project too', () => {
    const c = new EventClock(null);
    c.saw(iso(T0 + 86_400_000));
    expect(ms(c.next())).toBe(T0 + BOUND);
    // The clock moves one millisecond on the fifth read from here.
    let reads = 0;
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => (reads++ < 4 ? T0 : T0 + 1));
    try {
      expect(ms(c.next())).toBe(T0 + 1 + BOUND);
      // Reopened at T0, after a session whose last stamp may have been T0 + the bound: its
      // first stamp waits for the clock too, so it comes after that one.
      reads = 0;
      expect(ms(new EventClock(iso(T0 + 86_400_000)).next())).toBe(T0 + 1 + BOUND);
    } finally {
      clock.mockImplementation(() => now);
    }
  });
});

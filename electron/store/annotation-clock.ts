/**
 * The clock of local annotation events. `at` must increase strictly for local events so that
 * replay order (at, uuid) equals the order the user made the edits in, even within one
 * millisecond, and a new edit comes after every event the project holds — as a hybrid logical
 * clock does, up to a bound: a stamp is never later than this clock + CLOCK_SKEW_BOUND_MS, so
 * an event stamped far ahead by a wrong clock elsewhere (pulled, merged) cannot drag every later
 * edit here into its future (docs/team-sync.md §3, "Clocks").
 */
import { CLOCK_SKEW_BOUND_MS } from '../../shared/domain/annotations';

export class EventClock {
  private lastAtMs: number;
  /** No earlier local stamp is later than this (each was at most its clock + the bound). */
  private lastIssuedMs: number;

  /** `maxAt`: the latest `at` the project holds (null without events). */
  constructor(maxAt: string | null) {
    this.lastAtMs = Date.parse(maxAt ?? '') || 0;
    this.lastIssuedMs = Math.min(this.lastAtMs, Date.now() + CLOCK_SKEW_BOUND_MS);
  }

  /**
   * The stamp of a new local event. Both rules hold together only if a stamp at the ceiling
   * (clock + bound) waits for the clock: once this millisecond's ceiling is taken, the next edit
   * is stamped in the next millisecond. That wait can only happen after meeting an event
   * stamped beyond the bound, and lasts < 1 ms.
   */
  next(): string {
    for (;;) {
      const now = Date.now();
      const at = Math.max(now, Math.min(this.lastAtMs + 1, now + CLOCK_SKEW_BOUND_MS));
      if (at > this.lastIssuedMs) {
        this.lastIssuedMs = at;
        if (at > this.lastAtMs) this.lastAtMs = at;
        return new Date(at).toISOString();
      }
    }
  }

  /** An event stamped `at` was merged into the project: later local edits are stamped after it. */
  saw(at: string): void {
    const ms = Date.parse(at);
    if (ms > this.lastAtMs) this.lastAtMs = ms;
  }

  /** Another connection added events, the latest stamped `maxAt`: later local edits are stamped after every one. */
  resync(maxAt: string | null): void {
    this.lastAtMs = Math.max(this.lastAtMs, Date.parse(maxAt ?? '') || 0);
  }
}

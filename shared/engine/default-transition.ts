/**
 * The transition the item view explains first (docs/metrics.md §2 names the pairs; README "Item
 * view" states this rule). An audit is about what visual input did, so:
 *
 * 1. the first harmed step of the budget ladder between two visual configs (right at a, wrong
 *    at the next visual budget b) — for a terminal regression 1100 over
 *    textonly, 16f, 32f, 64f that is 16f>32f, where the item was lost, not textonly>64f;
 * 2. else the first harmed transition (text only right, every visual budget wrong: the text
 *    overwrite `textonly>c` with c the first visual config it loses);
 * 3. else none.
 *
 * `harmed` is in the order itemTransitions lists it (ladder steps first, then text → c);
 * `frames` gives each config's frame count (0 for text only).
 */
export function defaultTransition(harmed: readonly string[], frames: (config: string) => number | undefined): string | null {
  for (const t of harmed) {
    // split always yields a first part, so only b can be missing (no '>').
    const [a, b] = t.split('>') as [string, ...string[]];
    if (b === undefined) continue;
    if ((frames(a) ?? 0) > 0 && (frames(b) ?? 0) > 0) return t;
  }
  return harmed[0] ?? null;
}

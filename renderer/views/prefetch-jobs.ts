/**
 * The item view's frame jobs: their ids, and the prefetch jobs of the item view the user just
 * left. Those are cancelled once the next view's own extraction has started (so frames both
 * need are not killed and restarted — the frame service keeps a running decode while any
 * request still wants it), or after a short grace period when no item view follows (back to
 * the queue). Module state: it outlives the view that started the jobs, on purpose.
 */
let jobSeq = 0;
export const newJobId = (kind: string): string => `${kind}-${Date.now().toString(36)}-${(jobSeq++).toString(36)}`;

const orphanPrefetch = new Set<string>();
let orphanTimer: ReturnType<typeof setTimeout> | null = null;

/** Cancels every orphaned prefetch job now. */
export function flushPrefetch(cancel: (jobId: string) => void): void {
  if (orphanTimer !== null) clearTimeout(orphanTimer);
  orphanTimer = null;
  for (const id of orphanPrefetch) cancel(id);
  orphanPrefetch.clear();
}

/** The view that started `jobIds` is gone: they are cancelled by the next view, or after `graceMs`. */
export function orphanPrefetchJobs(jobIds: readonly string[], cancel: (jobId: string) => void, graceMs: number): void {
  for (const id of jobIds) orphanPrefetch.add(id);
  if (orphanTimer !== null) clearTimeout(orphanTimer);
  orphanTimer = setTimeout(() => flushPrefetch(cancel), graceMs);
}

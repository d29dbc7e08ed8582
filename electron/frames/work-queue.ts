/**
 * A priority queue of cancellable work with a fixed number of slots and preemption, apart
 * from what the work is (the frame service runs ffmpeg decodes on it; the tests run plain
 * promises). Work carries the requesters that want it: its priority is the best (lowest) of
 * its live requesters', equal priorities run in submission order, work no live requester wants
 * is dropped from the queue (or aborted when running), and — when every slot is busy and better
 * work waits — the worst running preemptible work is aborted so that its owner can requeue what
 * it has not finished.
 */

/** One wish for a piece of work: lower priority runs first (0 = the view on screen). */
export interface Requester {
  priority: number;
  alive: boolean;
}

export interface Work {
  seq: number;
  requesters: Set<Requester>;
  controller: AbortController;
  state: 'queued' | 'running' | 'done';
  /** May be stopped for better-priority work (its controller aborted, `preempted` set). */
  readonly preemptible: boolean;
  preempted: boolean;
}

export interface WorkQueueOptions<W extends Work> {
  /** Work running at once. */
  parallelism: number;
  /** Stop preemptible work for better-priority work (default true). */
  preempt?: boolean;
  /**
   * Runs one piece of work (it must not reject). When it settles the work is done, unless it
   * was put back with push() meanwhile (a preempted batch with frames left).
   */
  execute(work: W): Promise<void>;
  /** Work dropped while queued because no live requester wants it any more. */
  cancelled(work: W): void;
}

export interface WorkQueue<W extends Work> {
  /** Sequence number for new work (earlier = first among equal priorities). */
  nextSeq(): number;
  /** Queues work (does not start it: call pump()). */
  push(work: W): void;
  /** Starts the best queued work while slots are free, then preempts if better work waits. */
  pump(): void;
  /** `requester` no longer wants `work`: with no live requester left it is dequeued or aborted. */
  drop(work: W, requester: Requester): void;
  stats(): { running: number; queued: number; preempted: number };
  /** Drops all queued work and aborts running work. */
  close(): void;
}

/** The best (lowest) priority among a work's live requesters; Infinity when none is alive. */
export function priorityOf(w: Work): number {
  let best = Infinity;
  for (const r of w.requesters) if (r.alive && r.priority < best) best = r.priority;
  return best;
}

export function createWorkQueue<W extends Work>(options: WorkQueueOptions<W>): WorkQueue<W> {
  const parallelism = Math.max(1, options.parallelism);
  const queue: W[] = [];
  const active = new Set<W>();
  let running = 0;
  let seq = 0;
  let preemptions = 0;

  function start(work: W): void {
    running++;
    active.add(work);
    work.state = 'running';
    const after = (): void => {
      if (work.state === 'running') work.state = 'done';
      work.preempted = false;
      active.delete(work);
      running--;
      pump();
    };
    options.execute(work).then(after, after);
  }

  function pump(): void {
    while (running < parallelism && queue.length) {
      let best = 0;
      for (let i = 1; i < queue.length; i++) {
        const a = queue[i]!;
        const b = queue[best]!;
        const pa = priorityOf(a);
        const pb = priorityOf(b);
        if (pa < pb || (pa === pb && a.seq < b.seq)) best = i;
      }
      const [work] = queue.splice(best, 1);
      if (work) start(work);
    }
    preempt();
  }

  /**
   * When every slot is busy with work only lower-priority requesters want and better work is
   * queued, the worst such work is stopped (one per waiting piece of better work). Work that is
   * not preemptible (short work, cheaper to wait for) is never stopped.
   */
  function preempt(): void {
    if (!queue.length || options.preempt === false) return;
    const waiting = queue.map(priorityOf).sort((a, b) => a - b);
    const runningPreemptible = [...active].filter((t) => t.preemptible && t.state === 'running');
    // Slots already being given up serve the best waiting work first.
    let next = runningPreemptible.filter((t) => t.preempted).length;
    const victims = runningPreemptible.filter((t) => !t.preempted).sort((a, b) => priorityOf(b) - priorityOf(a) || b.seq - a.seq);
    for (const v of victims) {
      const want = waiting[next];
      if (want === undefined || priorityOf(v) <= want) break;
      v.preempted = true;
      preemptions++;
      next++;
      v.controller.abort();
    }
  }

  function drop(work: W, r: Requester): void {
    work.requesters.delete(r);
    if ([...work.requesters].some((x) => x.alive)) return;
    if (work.state === 'queued') {
      const i = queue.indexOf(work);
      if (i >= 0) queue.splice(i, 1);
      work.state = 'done';
      options.cancelled(work);
    } else if (work.state === 'running') work.controller.abort();
  }

  return {
    nextSeq: () => seq++,
    push(work) {
      work.state = 'queued';
      queue.push(work);
    },
    pump,
    drop,
    stats: () => ({ running, queued: queue.length, preempted: preemptions }),
    close() {
      for (const t of [...queue]) {
        for (const r of t.requesters) r.alive = false;
        drop(t, { priority: 0, alive: false });
      }
      queue.length = 0;
      for (const w of active) w.controller.abort();
    },
  };
}

/**
 * The audit queue as the renderer holds it: only pages of rows around what is on screen,
 * fetched from the backend with queue:page as the list scrolls (docs/architecture.md "The
 * queue at lab scale"). At most QUEUE_PAGES_KEPT pages are held, whatever the project's size;
 * the pages farthest from the last range asked are dropped first. Pages are fetched again
 * when the backend says the data changed (an import, an annotation, a setting).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ItemRef, QueueRow, Res } from '../../shared/api/contract';
import type { QueueFilter, QueueSort } from '../../shared/api/queue-filter';
import type { FlipbookClient } from '../../shared/api/client';
import { useClient } from './use-client';

export const QUEUE_PAGE_SIZE = 100;
/** Pages held at once: the bound on the rows the renderer holds (QUEUE_PAGE_SIZE × this). */
export const QUEUE_PAGES_KEPT = 6;

type Page = Res<'queue:page'>;

export interface QueueRequest {
  filter: QueueFilter;
  sort: QueueSort;
  annotator: string | null;
}

export interface QueuePages {
  /** Null until the first answer. */
  total: number | null;
  /** What is shown answers an earlier filter/sort; the new answer is on its way. */
  stale: boolean;
  done: number;
  all: number;
  facets: Page['facets'];
  /** Rows currently held (never more than QUEUE_PAGE_SIZE × QUEUE_PAGES_KEPT). */
  held: number;
  error: string | null;
  rowAt(index: number): QueueRow | undefined;
  /** Ask for the rows [start, end] (inclusive), e.g. the virtualised list's visible range. */
  want(start: number, end: number): void;
  /** The row at `index`, fetched when it is not held (Enter on a row not yet loaded). */
  fetchRow(index: number): Promise<ItemRef | null>;
}

/** The pages covering rows [start, end], at most QUEUE_PAGES_KEPT of them. */
function pagesOf(start: number, end: number): number[] {
  const out: number[] = [];
  const last = Math.floor(Math.max(0, end) / QUEUE_PAGE_SIZE);
  for (let p = Math.floor(Math.max(0, start) / QUEUE_PAGE_SIZE); p <= last && out.length < QUEUE_PAGES_KEPT; p++) out.push(p);
  return out;
}

const NO_FACETS: Page['facets'] = { taskTypes: [], transitions: [], annotators: [] };

interface Held {
  key: string;
  pages: Map<number, QueueRow[]>;
  total: number | null;
  done: number;
  all: number;
  facets: Page['facets'];
}

export function useQueuePages(req: QueueRequest, active: boolean): QueuePages {
  const client = useClient();
  const key = JSON.stringify(req);
  const [held, setHeld] = useState<Held>({ key, pages: new Map(), total: null, done: 0, all: 0, facets: NO_FACETS });
  const [error, setError] = useState<string | null>(null);
  // Answers for another filter (or from before a data change) are dropped: `epoch` counts both.
  const epoch = useRef(0);
  const inflight = useRef(new Set<number>());
  const lastRange = useRef<[number, number]>([0, QUEUE_PAGE_SIZE - 1]);

  const fetchPage = useCallback(
    (page: number, mine: number) => {
      if (inflight.current.has(page)) return;
      inflight.current.add(page);
      const r = JSON.parse(key) as QueueRequest;
      void client
        .call('queue:page', {
          filter: r.filter,
          sort: r.sort,
          offset: page * QUEUE_PAGE_SIZE,
          limit: QUEUE_PAGE_SIZE,
          ...(r.annotator !== null && { annotator: r.annotator }),
        })
        .then((res) => {
          if (mine !== epoch.current) return;
          inflight.current.delete(page);
          if (!res.ok) {
            setError(res.error.message);
            return;
          }
          setError(null);
          const v = res.value;
          setHeld((h) => {
            const pages = new Map(h.key === key ? h.pages : []);
            pages.set(page, v.rows);
            // Keep the pages nearest the range last asked for; drop the farthest beyond the bound.
            const centre = Math.floor((lastRange.current[0] + lastRange.current[1]) / 2 / QUEUE_PAGE_SIZE);
            const byDistance = [...pages.keys()].sort((a, b) => Math.abs(a - centre) - Math.abs(b - centre));
            for (const p of byDistance.slice(QUEUE_PAGES_KEPT)) pages.delete(p);
            return { key, pages, total: v.total, done: v.done, all: v.all, facets: v.facets };
          });
        });
    },
    [client, key],
  );

  // A new filter/sort/annotator: start again from what the list shows (its range is kept).
  useEffect(() => {
    if (!active) return;
    const mine = ++epoch.current;
    inflight.current.clear();
    for (const p of pagesOf(...lastRange.current)) fetchPage(p, mine);
    const off = client.on('data:changed', () => {
      // Refetch what is held; the old rows stay on screen until the new ones arrive.
      const again = ++epoch.current;
      inflight.current.clear();
      for (const p of pagesOf(...lastRange.current)) fetchPage(p, again);
    });
    const counter = epoch;
    return () => {
      off();
      // Answers still in flight belong to a request this list no longer shows.
      counter.current++;
    };
  }, [active, client, fetchPage]);

  // Until the first answer for a new filter arrives, the last answer stays on screen (typing
  // in the search box must not blank the list or reset the selection at every key).
  const stale = held.key !== key;
  const want = useCallback(
    (start: number, end: number) => {
      lastRange.current = [start, end];
      for (const p of pagesOf(start, end)) if (stale || !held.pages.has(p)) fetchPage(p, epoch.current);
    },
    [held, stale, fetchPage],
  );

  const fetchRow = useCallback(
    async (index: number): Promise<ItemRef | null> => {
      const r = JSON.parse(key) as QueueRequest;
      const res = await client.call('queue:page', { filter: r.filter, sort: r.sort, offset: index, limit: 1, ...(r.annotator !== null && { annotator: r.annotator }) });
      const row = res.ok ? res.value.rows[0] : undefined;
      return row ? { model: row.model, split: row.split, sampleId: row.sampleId } : null;
    },
    [client, key],
  );

  let count = 0;
  for (const rows of held.pages.values()) count += rows.length;
  return {
    total: held.total,
    stale,
    done: held.done,
    all: held.all,
    facets: held.facets,
    held: count,
    error,
    rowAt: (i) => held.pages.get(Math.floor(i / QUEUE_PAGE_SIZE))?.[i % QUEUE_PAGE_SIZE],
    want,
    fetchRow,
  };
}
/** The item view's place in the queue: its neighbours from one small queue:page around it. */
export interface Neighbours {
  prev: ItemRef | null;
  next: ItemRef | null;
  position: number;
  total: number;
  upcoming: ItemRef[];
}

const ref = (r: QueueRow | undefined): ItemRef | null => (r ? { model: r.model, split: r.split, sampleId: r.sampleId } : null);

/** Takes the client itself: App, which provides the client context, asks it. */
export function useNeighbours(client: FlipbookClient, item: ItemRef | null, req: QueueRequest): Neighbours {
  const [n, setN] = useState<Neighbours>({ prev: null, next: null, position: -1, total: 0, upcoming: [] });
  const key = JSON.stringify([item, req]);
  useEffect(() => {
    const r = JSON.parse(key) as [ItemRef | null, QueueRequest];
    const it = r[0];
    if (it === null) return;
    let live = true;
    const load = () => {
      void client
        .call('queue:page', {
          filter: r[1].filter,
          sort: r[1].sort,
          offset: 0,
          limit: 4,
          at: it,
          ...(r[1].annotator !== null && { annotator: r[1].annotator }),
        })
        .then((res) => {
          if (!live || !res.ok) return;
          const v = res.value;
          // The page starts at the row before the item (or at it, when it is first).
          const at = v.position - v.offset;
          if (v.position < 0) setN({ prev: null, next: ref(v.rows[0]), position: -1, total: v.total, upcoming: [] });
          else
            setN({
              prev: at > 0 ? ref(v.rows[at - 1]) : null,
              next: ref(v.rows[at + 1]),
              position: v.position,
              total: v.total,
              upcoming: [v.rows[at + 1], v.rows[at + 2]].map(ref).filter((x): x is ItemRef => x !== null),
            });
        });
    };
    load();
    const off = client.on('data:changed', load);
    return () => {
      live = false;
      off();
    };
  }, [client, key]);
  return n;
}

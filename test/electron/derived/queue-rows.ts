/** Every queue row of a backend, paged through queue:page (the backend has no whole-queue operation). */
import { QUEUE_PAGE_MAX, type QueueRow } from '../../../shared/api/contract';
import { EMPTY_FILTER } from '../../../shared/api/queue-filter';

type Call = <T>(op: string, req: unknown) => Promise<T>;

/** In (model, split, sample id) order, with `annotator`'s statuses (default: the latest written). */
export async function allQueueRows(call: Call, annotator?: string): Promise<QueueRow[]> {
  const out: QueueRow[] = [];
  for (;;) {
    const page = await call<{ rows: QueueRow[]; total: number }>('queue:page', {
      filter: { ...EMPTY_FILTER, preset: 'all' },
      sort: { key: 'model', desc: false },
      offset: out.length,
      limit: QUEUE_PAGE_MAX,
      ...(annotator !== undefined && { annotator }),
    });
    out.push(...page.rows);
    if (page.rows.length === 0 || out.length >= page.total) return out;
  }
}

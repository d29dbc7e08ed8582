/**
 * Saved queue views: the queue's filter, sort and visible columns saved by name in
 * the project (views:* operations, SQLite), listed, applied, renamed and deleted. A view the
 * overview opened is shown as unsaved until the user names it.
 */
import { useCallback, useEffect, useState } from 'react';
import { QUEUE_COLUMNS, type QueueColumn, type SavedViewDto, type SavedViewValue } from '../../shared/api/overview';
import { EMPTY_FILTER, type QueueFilter, type QueueSort } from '../../shared/api/queue-filter';
import { useClient } from '../api/use-client';

export interface SavedViewsBarProps {
  filter: QueueFilter;
  sort: QueueSort;
  columns: QueueColumn[];
  /** Label of the overview mark that produced the current, not yet saved, view. */
  unsaved: string | null;
  onApply: (v: SavedViewValue, name: string) => void;
  onColumns: (c: QueueColumn[]) => void;
  onSaved: () => void;
}

function toValue(filter: QueueFilter, sort: QueueSort, columns: QueueColumn[]): SavedViewValue {
  return {
    filter: { ...EMPTY_FILTER, ...filter, transitionKind: filter.transitionKind ?? null, itemSet: filter.itemSet ?? null },
    sort,
    columns,
  };
}

export function SavedViewsBar({ filter, sort, columns, unsaved, onApply, onColumns, onSaved }: SavedViewsBarProps) {
  const client = useClient();
  const [views, setViews] = useState<SavedViewDto[]>([]);
  const [name, setName] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<{ id: number; name: string } | null>(null);

  const refresh = useCallback(async () => {
    const r = await client.call('views:list', {});
    if (r.ok) setViews(r.value);
    else setMessage(r.error.message);
  }, [client]);
  useEffect(() => void refresh(), [refresh]);

  const save = async () => {
    const n = name.trim() || unsaved || '';
    if (n === '') {
      setMessage('name the view first');
      return;
    }
    const r = await client.call('views:save', { name: n, value: toValue(filter, sort, columns) });
    if (!r.ok) return setMessage(r.error.message);
    setName('');
    setMessage(`saved “${r.value.name}”`);
    onSaved();
    await refresh();
  };

  return (
    <section className="saved-views" aria-label="Saved views">
      {unsaved && (
        <span className="unsaved" role="status" aria-label="Unsaved view">
          Unsaved view: {unsaved}
          {filter.itemSet ? ` (${filter.itemSet.ids.length} items)` : ''}
        </span>
      )}
      <label>
        View name
        <input aria-label="View name" value={name} placeholder={unsaved ?? 'name'} onChange={(e) => setName(e.target.value)} onKeyDown={(e) => e.key === 'Enter' && void save()} />
      </label>
      <button type="button" aria-label="Save view" onClick={() => void save()}>
        Save view
      </button>
      <details>
        <summary>Columns</summary>
        {QUEUE_COLUMNS.map((c) => (
          <label key={c}>
            <input
              type="checkbox"
              aria-label={`Column: ${c}`}
              checked={columns.includes(c)}
              onChange={(e) => onColumns(e.target.checked ? QUEUE_COLUMNS.filter((x) => x === c || columns.includes(x)) : columns.filter((x) => x !== c))}
            />
            {c}
          </label>
        ))}
      </details>
      <ul aria-label="Saved view list" className="saved-view-list">
        {views.map((v) => (
          <li key={v.id} data-view={v.name}>
            {renaming?.id === v.id ? (
              <>
                <input aria-label={`New name for ${v.name}`} value={renaming.name} onChange={(e) => setRenaming({ id: v.id, name: e.target.value })} />
                <button
                  type="button"
                  aria-label={`Confirm rename of ${v.name}`}
                  onClick={async () => {
                    const r = await client.call('views:rename', { id: v.id, name: renaming.name });
                    if (r.ok) {
                      setViews(r.value);
                      setRenaming(null);
                    } else setMessage(r.error.message);
                  }}
                >
                  OK
                </button>
              </>
            ) : (
              <button type="button" className="link" aria-label={`Apply view ${v.name}`} onClick={() => onApply(v.value, v.name)}>
                {v.name}
              </button>
            )}
            <button type="button" aria-label={`Rename view ${v.name}`} onClick={() => setRenaming({ id: v.id, name: v.name })}>
              rename
            </button>
            <button
              type="button"
              aria-label={`Delete view ${v.name}`}
              onClick={async () => {
                const r = await client.call('views:delete', { id: v.id });
                if (r.ok) setViews(r.value);
                else setMessage(r.error.message);
              }}
            >
              delete
            </button>
          </li>
        ))}
      </ul>
      {message && <span role="status">{message}</span>}
    </section>
  );
}

/** CSS that hides the queue's unchecked columns (positional: the queue draws them in QUEUE_COLUMNS order). */
export function hiddenColumnsCss(columns: readonly QueueColumn[]): string {
  return QUEUE_COLUMNS.map((c, i) =>
    columns.includes(c) ? '' : `.queue-cols .queue-row > :nth-child(${i + 1}), .queue-cols .queue-header > :nth-child(${i + 1}) { display: none; }`,
  )
    .filter(Boolean)
    .join('\n');
}

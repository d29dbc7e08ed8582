import { useEffect, useMemo, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { ANNOTATION_STATUSES, TRAJECTORY_CLASSES, type ItemRef, type ProjectInfo } from '../../shared/api/contract';
import { CONTINUOUS_CLASSES } from '../../shared/engine/continuous';
import type { FlagName, QueueFilter, QueueSort, SortKey } from '../../shared/api/queue-filter';
import { useShortcuts } from '../keymap';
import { useQueuePages } from '../api/use-queue-pages';

const FLAGS: { id: FlagName; label: string }[] = [
  { id: 'terminalRegression', label: 'terminal regression' },
  { id: 'visuallyConfused', label: 'visually confused' },
  { id: 'textOverwritten', label: 'text overwritten' },
];

/**
 * A filter control shows the value actually applied, even one this project has no rows for
 * (a saved view or a click-through can name it): a select would otherwise fall back to "any".
 */
function Select({ label, value, options, onChange }: { label: string; value: string | null; options: string[]; onChange: (v: string | null) => void }) {
  const missing = value !== null && !options.includes(value);
  return (
    <label>
      {label}
      <select aria-label={label} value={value ?? ''} onChange={(e) => onChange(e.target.value === '' ? null : e.target.value)}>
        <option value="">any</option>
        {missing && <option value={value}>{value} (no rows)</option>}
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Every constraint of the filter in words, including those without a control (item sets, harmed/rescued). */
export function describeFilter(f: QueueFilter): string[] {
  const out: string[] = [];
  if (f.preset === 'default') out.push('terminal regressions and confused');
  if (f.model !== null) out.push(`model ${f.model}`);
  if (f.split !== null) out.push(`split ${f.split}`);
  if (f.taskType !== null) out.push(`task type ${f.taskType}`);
  if (f.trajectoryClass !== null) out.push(`class ${f.trajectoryClass}`);
  if (f.transition !== null) out.push(`${f.transitionKind ?? 'harmed or rescued'} at ${f.transition}`);
  if (f.itemSet) out.push(`${f.itemSet.ids.length} items of “${f.itemSet.label}”`);
  if (f.status !== null) out.push(`status ${f.status}`);
  if (f.annotator !== null) out.push(`annotator ${f.annotator}`);
  if (f.hasVideo !== null) out.push(f.hasVideo ? 'with video' : 'without video');
  for (const flag of f.flags) out.push(FLAGS.find((x) => x.id === flag)?.label ?? flag);
  if (f.search.trim() !== '') out.push(`search “${f.search.trim()}”`);
  return out;
}

/** What the digits of the pattern column mean: one per config, in each grid's config order. */
function PatternLegend({ grids }: { grids: ProjectInfo['grids'] }) {
  if (grids.length === 0) return null;
  const orders = new Map<string, string[]>();
  for (const g of grids) {
    const order = g.configs.map((c) => c.key).join(' ');
    orders.set(order, [...(orders.get(order) ?? []), `${g.model} / ${g.split}`]);
  }
  return (
    <details className="pattern-legend" aria-label="Pattern legend">
      <summary>
        Pattern: one digit per config, 1 correct · 0 wrong · . no answer
        {orders.size === 1 ? (
          <>
            {' '}
            — in order <code>{[...orders.keys()][0]}</code>
          </>
        ) : (
          ' — config order per grid'
        )}
      </summary>
      <ul>
        {[...orders].map(([order, where]) => (
          <li key={order}>
            <code>{order}</code> <span className="muted">({where.join(', ')})</span>
          </li>
        ))}
      </ul>
    </details>
  );
}

export function QueueView({
  project,
  annotator,
  filter,
  sort,
  onFilter,
  onSort,
  onOpen,
  onClear,
  scrollTop,
  onScrollTop,
}: {
  project: ProjectInfo;
  /** Clears every filter (the filters with no control of their own too). */
  onClear: () => void;
  /** Where the list was scrolled last time in this project. */
  scrollTop: number;
  onScrollTop: (top: number) => void;
  /** Whose statuses the rows show. */
  annotator: string | null;
  filter: QueueFilter;
  sort: QueueSort;
  onFilter: (f: QueueFilter) => void;
  onSort: (s: QueueSort) => void;
  onOpen: (item: ItemRef) => void;
}) {
  const parentRef = useRef<HTMLDivElement>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  const [selected, setSelected] = useState(0);
  // The backend filters, sorts and counts; this view holds only the pages around what it shows.
  const queue = useQueuePages(
    useMemo(() => ({ filter, sort, annotator }), [filter, sort, annotator]),
    true,
  );
  const opts = queue.facets;
  const total = queue.total ?? 0;
  const progress = { done: queue.done, total };
  const virtualizer = useVirtualizer({ count: total, getScrollElement: () => parentRef.current, estimateSize: () => 34, overscan: 12 });
  const visible = virtualizer.getVirtualItems();
  const first = visible[0]?.index ?? 0;
  const last = visible[visible.length - 1]?.index ?? 0;
  const { want } = queue;
  useEffect(() => want(first, last), [want, first, last]);
  // The pattern column's config order, for the grids the filter can show.
  const legendGrids = project.grids.filter((g) => (filter.model === null || g.model === filter.model) && (filter.split === null || g.split === filter.split));
  const set = (patch: Partial<QueueFilter>) => onFilter({ ...filter, ...patch });

  useEffect(() => setSelected((s) => Math.min(s, Math.max(0, total - 1))), [total]);
  // Back in this project's queue: where it was left (the list is keyed by project).
  const initialScroll = useRef(scrollTop);
  useEffect(() => {
    if (parentRef.current && initialScroll.current > 0) parentRef.current.scrollTop = initialScroll.current;
  }, []);
  const applied = describeFilter(filter);

  const move = (d: 1 | -1) =>
    setSelected((cur) => {
      const n = Math.max(0, Math.min(total - 1, cur + d));
      virtualizer.scrollToIndex(n);
      return n;
    });
  const openRow = (index: number) => {
    if (index < 0 || index >= total) return;
    const r = queue.rowAt(index);
    if (r) onOpen({ model: r.model, split: r.split, sampleId: r.sampleId });
    // Enter on a row whose page is not here yet (j held down past the loaded pages).
    else void queue.fetchRow(index).then((item) => item && onOpen(item));
  };
  useShortcuts('queue', {
    focusSearch: () => searchRef.current?.focus(),
    nextRow: () => move(1),
    prevRow: () => move(-1),
    openSelected: () => openRow(selected),
  });

  return (
    <div className="queue-view">
      <div className="queue-progress" role="status" aria-label="Audit progress">
        <strong>{progress.done}</strong> done / <strong>{progress.total - progress.done}</strong> to do ({progress.total} shown of {queue.all})
        <progress aria-label="Done of shown" max={Math.max(1, progress.total)} value={progress.done} />
      </div>
      {applied.length > 0 && (
        <p className="applied-filter" aria-label="Applied filter">
          Showing: {applied.join(' · ')}{' '}
          <button type="button" className="link" onClick={onClear}>
            Clear filters
          </button>
        </p>
      )}
      <div className="filters" role="group" aria-label="Queue filters">
        <label>
          Rows
          <select aria-label="Rows" value={filter.preset} onChange={(e) => set({ preset: e.target.value === 'all' ? 'all' : 'default' })}>
            <option value="default">terminal regressions and confused</option>
            <option value="all">all items</option>
          </select>
        </label>
        <Select label="Model" value={filter.model} options={project.models} onChange={(v) => set({ model: v })} />
        <Select label="Split" value={filter.split} options={project.splits} onChange={(v) => set({ split: v })} />
        <Select label="Task type" value={filter.taskType} options={opts.taskTypes} onChange={(v) => set({ taskType: v })} />
        <Select
          label="Trajectory class"
          value={filter.trajectoryClass}
          options={[...new Set<string>([...TRAJECTORY_CLASSES, ...CONTINUOUS_CLASSES])]}
          onChange={(v) => set({ trajectoryClass: v })}
        />
        <Select label="Transition" value={filter.transition} options={opts.transitions} onChange={(v) => set({ transition: v })} />
        <Select
          label="Status"
          value={filter.status}
          options={[...ANNOTATION_STATUSES]}
          onChange={(v) => set({ status: (ANNOTATION_STATUSES as readonly string[]).includes(v ?? '') ? (v as QueueFilter['status']) : null })}
        />
        <Select label="Annotator" value={filter.annotator} options={opts.annotators} onChange={(v) => set({ annotator: v })} />
        <label>
          Has video
          <select
            aria-label="Has video"
            value={filter.hasVideo === null ? '' : filter.hasVideo ? 'yes' : 'no'}
            onChange={(e) => set({ hasVideo: e.target.value === '' ? null : e.target.value === 'yes' })}
          >
            <option value="">any</option>
            <option value="yes">yes</option>
            <option value="no">no</option>
          </select>
        </label>
        {FLAGS.map((f) => (
          <label key={f.id}>
            <input
              type="checkbox"
              aria-label={`Flag: ${f.label}`}
              checked={filter.flags.includes(f.id)}
              onChange={(e) => set({ flags: e.target.checked ? [...filter.flags, f.id] : filter.flags.filter((x) => x !== f.id) })}
            />
            {f.label}
          </label>
        ))}
        <label>
          Search
          <input
            ref={searchRef}
            type="search"
            data-keymap="search"
            aria-label="Search queue"
            value={filter.search}
            onChange={(e) => set({ search: e.target.value })}
            placeholder="id, question, task (/)"
          />
        </label>
        <label>
          Sort
          <select aria-label="Sort by" value={sort.key} onChange={(e) => onSort({ ...sort, key: e.target.value as SortKey })}>
            <option value="default">priority (terminal regressions first)</option>
            <option value="sampleId">sample id</option>
            <option value="model">model</option>
            <option value="split">split</option>
            <option value="taskType">task type</option>
            <option value="status">status</option>
            <option value="class">trajectory class</option>
          </select>
        </label>
        <label>
          <input type="checkbox" aria-label="Sort descending" checked={sort.desc} onChange={(e) => onSort({ ...sort, desc: e.target.checked })} /> descending
        </label>
      </div>
      <div className="queue-header" aria-hidden="true">
        <span>item</span>
        <span>model</span>
        <span>split</span>
        <span>task</span>
        <span>pattern</span>
        <span>class</span>
        <span>flags</span>
        <span>status</span>
      </div>
      <PatternLegend grids={legendGrids} />
      {/* One click handler for all rows (the listbox is the focusable control; rows are its options). */}
      <div
        ref={parentRef}
        onScroll={(e) => onScrollTop(e.currentTarget.scrollTop)}
        className="queue-list"
        role="listbox"
        aria-label="Queue"
        aria-activedescendant={total ? `qrow-${selected}` : undefined}
        aria-busy={queue.total === null || queue.stale}
        // How many rows the renderer holds right now (bounded; the e2e paging test reads it).
        data-rows-held={queue.held}
        tabIndex={0}
        onClick={(e) => {
          const index = Number((e.target as HTMLElement).closest<HTMLElement>('[role=option]')?.dataset.index ?? -1);
          if (index < 0) return;
          setSelected(index);
          openRow(index);
        }}
        // Enter is the keymap's (openSelected); Space on the focused list opens the row too.
        onKeyDown={(e) => {
          if (e.key !== ' ') return;
          e.preventDefault();
          openRow(selected);
        }}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {visible.map((v) => {
            const r = queue.rowAt(v.index);
            const style = { position: 'absolute', top: 0, left: 0, right: 0, height: v.size, transform: `translateY(${v.start}px)` } as const;
            if (!r) {
              return (
                <div key={v.key} className="queue-row loading" aria-hidden="true" style={style}>
                  <span>…</span>
                </div>
              );
            }
            const flags = [r.flags.terminalRegression ? 'TR' : '', r.flags.visuallyConfused ? 'VC' : '', r.flags.textOverwritten ? 'TO' : ''].filter(Boolean).join(' ');
            return (
              <div
                key={v.key}
                id={`qrow-${v.index}`}
                data-index={v.index}
                role="option"
                aria-selected={v.index === selected}
                aria-label={`${r.model} ${r.split} ${r.sampleId}`}
                className={`queue-row${v.index === selected ? ' selected' : ''}`}
                data-status={r.status}
                style={style}
              >
                <span>{r.sampleId}</span>
                <span>{r.model}</span>
                <span>{r.split}</span>
                <span>{r.taskType ?? ''}</span>
                <code>{r.pattern}</code>
                <span>{r.trajectoryClass ?? ''}</span>
                <span title="TR terminal regression, VC visually confused, TO text overwritten">{flags}</span>
                <span>
                  {r.status}
                  {r.hasVideo ? '' : ' · no video'}
                </span>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

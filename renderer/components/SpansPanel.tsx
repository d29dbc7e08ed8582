import { useEffect, useState } from 'react';
import type { EvidenceSpan } from '../../shared/api/contract';

function SpanLabel({ span, onSave, disabled }: { span: EvidenceSpan; onSave: (label: string) => void; disabled: boolean }) {
  const [v, setV] = useState(span.label);
  useEffect(() => setV(span.label), [span.label]);
  return (
    <input
      aria-label={`Label of span ${span.startS.toFixed(2)}–${span.endS.toFixed(2)}`}
      value={v}
      disabled={disabled}
      onChange={(e) => setV(e.target.value)}
      onBlur={() => v !== span.label && onSave(v)}
      onKeyDown={(e) => {
        if (e.key === 'Enter') (e.target as HTMLInputElement).blur();
      }}
    />
  );
}

export function SpansPanel({
  spans,
  selected,
  pendingIn,
  configs,
  readOnly,
  onSelect,
  onLabel,
  onDelete,
  onLoop,
}: {
  spans: EvidenceSpan[];
  selected: number;
  pendingIn: number | null;
  configs: string[];
  readOnly: boolean;
  onSelect: (i: number) => void;
  onLabel: (span: EvidenceSpan, label: string) => void;
  onDelete: (span: EvidenceSpan) => void;
  onLoop: (span: EvidenceSpan) => void;
}) {
  return (
    <section className="spans" aria-label="Evidence spans">
      <h3>Evidence spans</h3>
      <p className="hint">
        <kbd>i</kbd> mark in, <kbd>e</kbd> mark out; <kbd>↑</kbd>/<kbd>↓</kbd> select, <kbd>Shift/Alt+←/→</kbd> nudge, <kbd>Delete</kbd> remove, <kbd>y</kbd> loop.
      </p>
      {pendingIn !== null && (
        <p role="status" aria-label="Pending span">
          in at {pendingIn.toFixed(3)} s — press e to mark out
        </p>
      )}
      <ul aria-label="Spans">
        {spans.map((s, i) => {
          const missing = configs.filter((c) => c !== 'textonly' && !s.coveredBy.includes(c));
          return (
            <li key={s.id} className={i === selected ? 'selected' : ''} aria-current={i === selected} data-covered-by={s.coveredBy.join(';')}>
              <button type="button" aria-label={`Select span ${i + 1}: ${s.startS.toFixed(3)}–${s.endS.toFixed(3)} s`} onClick={() => onSelect(i)}>
                {s.startS.toFixed(3)}–{s.endS.toFixed(3)} s
              </button>
              <SpanLabel span={s} disabled={readOnly} onSave={(l) => onLabel(s, l)} />
              <span className="covered" aria-label={`Coverage of span ${i + 1}`}>
                covered by: {s.coveredBy.length > 0 ? s.coveredBy.join(', ') : 'no config'}
                {missing.length > 0 && <span className="missed"> · missed by {missing.join(', ')}</span>}
              </span>
              <button type="button" aria-label={`Loop span ${i + 1}`} onClick={() => onLoop(s)}>
                loop
              </button>
              <button type="button" aria-label={`Delete span ${i + 1}`} disabled={readOnly} onClick={() => onDelete(s)}>
                delete
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

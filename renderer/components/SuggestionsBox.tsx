import type { Suggestion } from '../../shared/api/suggestions';

/**
 * Pathways the data suggests, never applied without a click. Below the evidence spans, not
 * among the pathway chips: most suggestions are about the spans ("a span the failing budget
 * misses"), and at 1280×720 the first span row with its coverage line stays above the fold
 * (docs/architecture.md "The item view's time axis and moment view").
 */
export function SuggestionsBox({ suggestions, readOnly, onApply }: { suggestions: Suggestion[]; readOnly: boolean; onApply: (pathway: string) => void }) {
  if (suggestions.length === 0) return null;
  return (
    <div className="suggestions" aria-label="Suggestions">
      <h4>Suggested (not applied)</h4>
      <ul>
        {suggestions.map((s) => (
          <li key={s.pathway}>
            {s.pathway}: {s.reason}{' '}
            <button type="button" aria-label={`Apply suggestion ${s.pathway}`} disabled={readOnly} onClick={() => onApply(s.pathway)}>
              Apply
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * The item view of a generation item (open-ended QA, summarisation, a dialogue turn): the
 * dialogue so far as a readable exchange, the question, the reference answer(s), and one row per
 * config with its generated text — the words it shares with its best reference marked — its
 * score, where the score came from, and the step from the previous config (docs/metrics.md §4,
 * with ε), so a regression shows at a glance: which config dropped, and by how much.
 */
import type { ReactNode } from 'react';
import type { ItemDetail } from '../../shared/api/contract';
import { bestReference, markSharedWords } from '../../shared/api/shared-tokens';
import { STEP_DOWN, STEP_UP } from '../../shared/engine/continuous';

const f2 = (x: number) => x.toFixed(2);
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`;

function Dialogue({ detail }: { detail: ItemDetail }) {
  const c = detail.context;
  if (!c || (c.history.length === 0 && !c.caption && !c.summary && !c.prompt)) return null;
  return (
    <section className="dialogue" aria-label="Dialogue history">
      {(c.caption || c.summary) && (
        <details className="descriptions">
          <summary>Video descriptions</summary>
          {c.caption && (
            <p>
              <strong>caption</strong> {c.caption}
            </p>
          )}
          {c.summary && (
            <p>
              <strong>summary</strong> {c.summary}
            </p>
          )}
        </details>
      )}
      {c.history.length > 0 && (
        <ol className="turns" aria-label={`Earlier turns (${c.history.length})`}>
          {c.history.map((t, i) => (
            <li key={i} className="turn" data-turn={i}>
              <p className="q">
                <span className="who">Q{i + 1}</span> {t.question}
              </p>
              <p className="a">
                <span className="who">A{i + 1}</span> {t.answer}
              </p>
            </li>
          ))}
        </ol>
      )}
      {c.prompt && (
        <details className="prompt">
          <summary>Prompt as rendered</summary>
          <pre>{c.prompt}</pre>
        </details>
      )}
    </section>
  );
}

export function GenerationPanel({ detail, questionFallback }: { detail: ItemDetail; questionFallback?: ReactNode }) {
  const scores = detail.configs.map((c) => c.score);
  const present = scores.filter((s): s is number => s !== null);
  const best = present.length > 0 ? Math.max(...present) : null;
  const turn = detail.context?.history.length ?? 0;
  return (
    <section className="facts generation" aria-label="Generation item">
      <Dialogue detail={detail} />
      <div className="current">
        {detail.question !== null ? (
          <p className="question" aria-label="Question">
            {turn > 0 && <span className="who">Q{turn + 1}</span>} {detail.question}
          </p>
        ) : (
          questionFallback
        )}
        {detail.references.length > 0 ? (
          <ol className="references" aria-label={`Reference answers (${detail.references.length})`}>
            {detail.references.map((r, i) => (
              <li key={i} className="reference">
                {r}
              </li>
            ))}
          </ol>
        ) : (
          <p className="notice">(no reference answer in the project)</p>
        )}
      </div>
      <p>
        score <code aria-label="Score kind">{detail.score}</code> · pattern <code aria-label="Pattern">{detail.pattern || '—'}</code> · {detail.trajectoryClass ?? '—'} · ε{' '}
        {detail.eps}
      </p>
      <p aria-label="Flags">
        {detail.flags.terminalRegression && <span className="flag tr">terminal regression</span>}
        {detail.flags.visuallyConfused && <span className="flag vc">regresses with budget</span>}
      </p>
      <table className="predictions generations" aria-label="Generations per config">
        <thead>
          <tr>
            <th scope="col">config</th>
            <th scope="col">generated text (words shared with its best reference marked)</th>
            <th scope="col">score</th>
            <th scope="col">step</th>
          </tr>
        </thead>
        <tbody>
          {detail.configs.map((c, j) => {
            const prev = j > 0 ? scores[j - 1] : null;
            const step = c.score !== null && prev !== null && prev !== undefined ? c.score - prev : null;
            const dir = step === null ? '' : step > detail.eps ? STEP_UP : step < -detail.eps ? STEP_DOWN : '=';
            const belowBest = c.score !== null && best !== null && c.score < best - detail.eps;
            const ref = c.pred !== null ? bestReference(c.pred, detail.references) : null;
            return (
              <tr
                key={c.key}
                className={[dir === STEP_DOWN ? 'drop' : dir === STEP_UP ? 'rise' : '', belowBest ? 'below-best' : '', c.score !== null && c.score === best ? 'best' : '']
                  .filter(Boolean)
                  .join(' ')}
                data-config={c.key}
                data-score={c.score ?? ''}
              >
                <th scope="row">
                  {c.key}
                  {c.sampler && <small> {c.sampler}</small>}
                </th>
                <td className="text">
                  {c.pred === null ? (
                    <span className="muted">(no text)</span>
                  ) : ref !== null ? (
                    markSharedWords(c.pred, ref.ref).map((w, i) => (w.shared ? <mark key={i}>{w.text}</mark> : <span key={i}>{w.text}</span>))
                  ) : (
                    c.pred
                  )}
                </td>
                <td className="score" title={c.scoreSource ? `score: ${c.scoreSource}` : undefined}>
                  {c.score === null ? '—' : f2(c.score)}
                  {c.scoreSource && c.scoreSource !== 'token_f1' && <small> ({c.scoreSource})</small>}
                  {belowBest && best !== null && <small className="drop-by"> {signed(c.score! - best)} vs best</small>}
                </td>
                <td className="step" aria-label={step === null ? 'no step' : `step ${signed(step)}`}>
                  {step === null ? '' : `${dir} ${Math.abs(step).toFixed(2)}`}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

/**
 * The numbers behind the flows chart: every transition of one grid (not only the ladder's
 * adjacent steps) with rescued/harmed counts that open exactly their items in the queue.
 */
import type { OverviewGrid } from '../../../shared/api/overview';
import { openFlow, pval, signed, type OpenQueue } from './FlowsChart';

export function TransitionsTable({ grid, onQueue }: { grid: OverviewGrid; onQueue: OpenQueue }) {
  const where = `${grid.model} / ${grid.split}`;
  return (
    <div className="table-scroll">
      <table className="numbers" aria-label={`Transitions: ${where}`}>
        <thead>
          <tr>
            <th className="text">transition</th>
            <th>rescued</th>
            <th>harmed</th>
            <th>net pts</th>
            <th>churn %</th>
            <th>McNemar p</th>
          </tr>
        </thead>
        <tbody>
          {grid.transitions.map((t) => (
            <tr key={`${t.from}>${t.to}`} data-transition={`${t.from}>${t.to}`}>
              <td className="text">
                {t.from} → {t.to}
              </td>
              <td>
                <button
                  type="button"
                  className="link good"
                  aria-label={`${t.rescued > 0 ? `+${t.rescued}` : '0'}: open rescued items of ${t.from} → ${t.to} (${where})`}
                  data-count={t.rescued}
                  onClick={() => openFlow(grid, onQueue, t, 'rescued')}
                >
                  {t.rescued > 0 ? `+${t.rescued}` : '0'}
                </button>
              </td>
              <td>
                <button
                  type="button"
                  className="link bad"
                  aria-label={`${t.harmed > 0 ? `−${t.harmed}` : '0'}: open harmed items of ${t.from} → ${t.to} (${where})`}
                  data-count={t.harmed}
                  onClick={() => openFlow(grid, onQueue, t, 'harmed')}
                >
                  {t.harmed > 0 ? `−${t.harmed}` : '0'}
                </button>
              </td>
              <td data-net={t.netPts} className={t.netPts < 0 ? 'neg' : t.netPts > 0 ? 'pos' : ''}>
                {signed(t.netPts)}
              </td>
              <td>{(100 * t.churnRate).toFixed(2)}</td>
              <td data-p={t.mcnemarP} className={t.mcnemarP < 0.05 ? 'sig' : ''}>
                {pval(t.mcnemarP)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

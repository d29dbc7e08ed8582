/**
 * Opening an overview mark's items: the overview's answer carries figures, not item lists
 * (docs/architecture.md "The overview at lab scale"), so a click asks the backend for the
 * mark's items (overview:items) and opens the queue on exactly them, as an unsaved view.
 */
import { useCallback, useState } from 'react';
import type { OverviewGrid, OverviewMark } from '../../../shared/api/overview';
import { markLabel } from '../../../shared/api/overview-marks';
import { useClient } from '../../api/use-client';
import type { OpenQueue } from './FlowsChart';

export type OpenMark = (mark: OverviewMark) => void;

/** The opener of one grid's marks, and the last failure to show (null when none). */
export function useOpenMark(grid: Pick<OverviewGrid, 'model' | 'split'>, onQueue: OpenQueue): { openMark: OpenMark; error: string | null } {
  const client = useClient();
  const [error, setError] = useState<string | null>(null);
  const { model, split } = grid;
  const openMark = useCallback<OpenMark>(
    (mark) => {
      void client.call('overview:items', { model, split, mark }).then((r) => {
        if (!r.ok) return setError(`Could not open ${markLabel(mark)}: ${r.error.message}`);
        setError(null);
        const label = markLabel(mark);
        onQueue({ model, split, itemSet: { label, ids: r.value.ids } }, `${label} (${model} / ${split})`);
      });
    },
    [client, model, split, onQueue],
  );
  return { openMark, error };
}

// A damaged parquet file is refused within the reader's deadline (electron/importers/parquet-rows.ts):
// hyparquet trusts a page's run lengths and can loop for minutes, so the rows are decoded on a
// thread of their own and the reader gives up when none arrive in ROWS_DEADLINE_MS. Each damaged
// byte here may take that long, so the mutation run leaves this file out (docs/testing.md).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ImportError } from '../../../electron/importers/errors';
import { readImport } from '../../../electron/importers/index';
import { ROWS_DEADLINE_MS } from '../../../electron/importers/parquet-rows';
import { Scratch } from './helpers';
import { videoMmeTable as table } from './videomme-table';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

describe('a damaged Video-MME table', () => {
  it('is refused within the deadline, and with no read left in flight: removing the file at once raises nothing later', async () => {
    const bytes = table(Array.from({ length: 3000 }, (_, i) => 'ABCD'[i % 4]!));
    // Byte 17658 of this table is in a data page's definition levels: flipped, it declares a run
    // of ~2^31 values, and hyparquet loops for minutes. Every 1999th byte besides.
    const positions = [17658];
    for (let at = 4; at < bytes.length - 8; at += 1999) positions.push(at);
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const outcomes: string[] = [];
      for (const [k, at] of positions.entries()) {
        const damaged = bytes.slice();
        damaged[at] = damaged[at]! ^ 0xff;
        const p = scratch.write(`damaged-${k}/test-00000-of-00001.parquet`, damaged);
        const t0 = performance.now();
        const outcome = await readImport(p).then(
          () => 'imported',
          (e: unknown) => e,
        );
        const ms = performance.now() - t0;
        // hyparquet may still have reads of the file in flight when it gives up on a part.
        fs.rmSync(path.dirname(p), { recursive: true, force: true });
        expect(ms, `byte ${at}`).toBeLessThan(ROWS_DEADLINE_MS + 3000);
        if (outcome !== 'imported') expect(outcome, `byte ${at}`).toBeInstanceOf(ImportError);
        outcomes.push(outcome === 'imported' ? 'imported' : (outcome as ImportError).reason);
      }
      expect(outcomes[0]).toMatch(/no rows decoded in \d+ s after row \d+: the file is damaged/);
      await new Promise((r) => setTimeout(r, 200));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  }, 60_000);
});

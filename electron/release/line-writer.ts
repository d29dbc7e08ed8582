/**
 * The WebAssembly line writer (wasm/per-item-writer.ts, built by scripts/build-wasm.js): the
 * per-cell and per-row copy loops of the release's big text files — per_item.csv's lines, the
 * wide CSVs' rows, derived.csv's lines — which a cold export ran mostly unoptimised in JS.
 * Callers lay out byte segments and sample ids with {@link loadShared}, their own arrays after
 * it, point the writer at them with `grid`, and call an entry.
 */
import { type KernelBase, instantiate } from '../wasm-kernels/instantiate';
import type { EncodedIds } from './encoded-ids';
import { PER_ITEM_WRITER_WASM } from './per-item-writer-wasm';

/** The writer's exports; addresses and sizes are byte offsets into `memory`. */
export interface LineWriter extends KernelBase {
  grid(rows: number, cols: number, idBytes: number, idStart: number, answerAt: number, colTable: number, segBytes: number, segStart: number, corSeg: number): void;
  write(r0: number, out: number, limit: number, rowMax: number): number;
  wide(r0: number, out: number, limit: number, rowMax: number): number;
  derived(out: number): void;
  written(): number;
  reset(): void;
}

let shared: LineWriter | null = null;

/**
 * The writer, every block of its previous use freed: whatever a caller keeps of its output
 * must be copied out before the next call. One instance for the process: an export makes ~60
 * calls (a wide CSV and derived.csv per grid), and a fresh instance each time meant fresh
 * memory, page-faulted in again, each time. `own` gives a fresh instance instead, whose memory
 * lives as long as the views of it (per_item.csv held whole for a zip).
 */
export function lineWriter(opts: { own?: boolean } = {}): LineWriter {
  if (opts.own) return instantiate<LineWriter>('per-item-writer', PER_ITEM_WRITER_WASM);
  shared ??= instantiate<LineWriter>('per-item-writer', PER_ITEM_WRITER_WASM);
  shared.reset();
  return shared;
}

/**
 * Copies a grid's byte segments and sample ids into the writer's memory, each with the 8 bytes
 * of padding the writer's 8-byte copies may read: segment i is [start[i], start[i + 1]) of the
 * bytes at `segBytes`, id r is [idStart[r], idStart[r + 1]) of the bytes at `idBytes`.
 * Allocate the caller's own blocks after this and before taking views: an allocation may grow
 * the memory, which detaches views made before it.
 */
export function loadShared(w: LineWriter, segments: readonly Uint8Array[], ids: EncodedIds): { segBytes: number; segStart: number; idBytes: number; idStart: number } {
  let total = 0;
  for (const b of segments) total += b.length;
  const segBytes = w.alloc(total + 8);
  const segStart = w.alloc(4 * (segments.length + 1));
  const idBytes = w.alloc(ids.bytes.length + 8);
  const idStart = w.alloc(4 * ids.start.length);
  const heap = w.memory.buffer; // after the allocations, which may grow the memory
  const bytes = new Uint8Array(heap);
  const starts = new Int32Array(heap, segStart, segments.length + 1);
  let o = 0;
  segments.forEach((b, i) => {
    starts[i] = o;
    bytes.set(b, segBytes + o);
    o += b.length;
  });
  starts[segments.length] = o;
  bytes.set(ids.bytes, idBytes);
  new Int32Array(heap, idStart, ids.start.length).set(ids.start);
  return { segBytes, segStart, idBytes, idStart };
}

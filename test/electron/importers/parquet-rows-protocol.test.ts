/**
 * The reading side of the parquet decoding thread (electron/importers/parquet-rows.ts) against
 * a thread that misbehaves as a real one only does when it crashes, hangs or is broken: it
 * fails, exits early or with an error, sends messages out of order, or goes silent (the
 * deadline, on a fake clock). The thread is replaced by one this test drives; the real thread
 * is parquet-rows.test.ts's and parquet-rows-thread.test.ts's, its real deadline
 * parquet-deadline.test.ts's.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ImportError } from '../../../electron/importers/errors';
import { errorData } from '../../../electron/importers/error-data';
import type { WorkerThreadHandlers } from '../../../electron/threads/worker-thread';

/** The thread the reader started: its handlers, and how often it was terminated. */
const started: { on: WorkerThreadHandlers; terminated: number; data: unknown }[] = [];
vi.mock('../../../electron/threads/worker-thread', async (original) => ({
  ...(await original<typeof import('../../../electron/threads/worker-thread')>()),
  startWorkerThread: (_entry: URL, data: unknown, on: WorkerThreadHandlers) => {
    const t = { on, terminated: 0, data };
    started.push(t);
    return { post: () => undefined, terminate: () => void t.terminated++ };
  },
}));
const { readParquetRows, ROWS_DEADLINE_MS } = await import('../../../electron/importers/parquet-rows');

function open(): { rows: ReturnType<typeof readParquetRows>; thread: (typeof started)[number] } {
  const rows = readParquetRows('/data/t.parquet', 'shown.parquet', 3);
  return { rows, thread: started.at(-1)! };
}
const header = { t: 'header', names: ['a'], rows: 5 };

beforeEach(() => {
  started.length = 0;
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the parquet thread, as the reader sees it', () => {
  it('asks the thread for the file and slice, and takes messages posted before or while it waits', async () => {
    const { rows, thread } = open();
    expect(thread.data).toEqual({ path: '/data/t.parquet', slice: 3 });
    thread.on.message(header);
    expect(await rows.header()).toEqual({ names: ['a'], rows: 5 });
    const next = rows.next();
    setTimeout(() => thread.on.message({ t: 'rows', start: 0, rows: [1, 2, 3] }), 5);
    expect(await next).toEqual({ start: 0, rows: [1, 2, 3] });
    thread.on.message({ t: 'end' });
    expect(await rows.next()).toBeNull();
    rows.stop();
    expect(thread.terminated).toBe(1);
  });

  it("rebuilds the thread's failure as it was thrown: an ImportError with its place, or an error with its name and code", async () => {
    const { rows, thread } = open();
    thread.on.message({ t: 'failed', error: errorData(new ImportError('shown.parquet', 7, 'answer', 'bad cell')) });
    const e = await rows.header().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ImportError);
    expect(e).toMatchObject({ file: 'shown.parquet', line: 7, field: 'answer', reason: 'bad cell' });
    const other = open();
    other.thread.on.message(header);
    await other.rows.header();
    other.thread.on.message({ t: 'failed', error: { name: 'RangeError', message: 'too big', code: 'E_BIG', importError: null } });
    await expect(other.rows.next()).rejects.toMatchObject({ name: 'RangeError', message: 'too big', code: 'E_BIG' });
  });

  it('an unreadable footer is refused as file:0', async () => {
    const { rows, thread } = open();
    thread.on.message({ t: 'unreadable', message: 'no footer' });
    await expect(rows.header()).rejects.toMatchObject({ file: 'shown.parquet', line: 0, field: '', reason: 'not a readable parquet file: no footer' });
  });

  it('a thread that exits gives its error, its exit code, or says it ended early; messages it sent first still come', async () => {
    const crashed = open();
    const boom = new Error('boom');
    crashed.thread.on.exit(1, boom);
    await expect(crashed.rows.header()).rejects.toBe(boom);

    const code = open();
    code.thread.on.message(header);
    code.thread.on.exit(3, null);
    expect(await code.rows.header()).toEqual({ names: ['a'], rows: 5 });
    await expect(code.rows.next()).rejects.toThrow('the parquet thread of shown.parquet exited with code 3');

    const early = open();
    const waiting = early.rows.header();
    early.thread.on.exit(0, null);
    await expect(waiting).rejects.toThrow('the parquet thread of shown.parquet ended before the end of the table');

    // An error with exit code 0 is still an error.
    const thrown = open();
    thrown.thread.on.exit(0, boom);
    await expect(thrown.rows.header()).rejects.toBe(boom);
  });

  it('refuses messages out of order', async () => {
    const first = open();
    first.thread.on.message({ t: 'rows', start: 0, rows: [] });
    await expect(first.rows.header()).rejects.toThrow('the parquet thread of shown.parquet sent rows before the header');
    const among = open();
    among.thread.on.message(header);
    among.thread.on.message(header);
    await among.rows.header();
    await expect(among.rows.next()).rejects.toThrow('the parquet thread of shown.parquet sent header among the rows');
    const bad = open();
    expect(() => bad.thread.on.message({ t: 'rows', start: -1, rows: [] })).toThrow();
  });

  it('a thread silent for the deadline is stopped and the file refused after the last row it sent; a message in time is no refusal', async () => {
    vi.useFakeTimers();
    const { rows, thread } = open();
    thread.on.message(header);
    thread.on.message({ t: 'rows', start: 0, rows: [1, 2, 3] });
    await rows.header();
    await rows.next();
    const late = rows.next().catch((x: unknown) => x);
    await vi.advanceTimersByTimeAsync(ROWS_DEADLINE_MS - 1);
    expect(thread.terminated).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    const e = await late;
    expect(e).toBeInstanceOf(ImportError);
    expect(e).toMatchObject({ file: 'shown.parquet', line: 4, field: '', reason: `no rows decoded in ${ROWS_DEADLINE_MS / 1000} s after row 3: the file is damaged` });
    expect(thread.terminated).toBe(1);

    const prompt = open();
    const h = prompt.rows.header();
    await vi.advanceTimersByTimeAsync(ROWS_DEADLINE_MS - 1);
    prompt.thread.on.message(header);
    expect(await h).toEqual({ names: ['a'], rows: 5 });
    expect(prompt.thread.terminated).toBe(0);

    // The deadline and a message, or the thread's exit, in the same turn: what the thread sent wins.
    const tie = open();
    const th = tie.rows.header();
    vi.advanceTimersByTime(ROWS_DEADLINE_MS);
    tie.thread.on.message(header);
    expect(await th).toEqual({ names: ['a'], rows: 5 });
    const gone = open();
    const gh = gone.rows.header();
    vi.advanceTimersByTime(ROWS_DEADLINE_MS);
    gone.thread.on.exit(2, null);
    await expect(gh).rejects.toThrow('exited with code 2');
    expect(tie.thread.terminated + gone.thread.terminated).toBe(0);
  });
});

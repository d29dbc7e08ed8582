/**
 * A main thread that starts the worker ENTRY (a module URL) without loading the store itself
 * (main-thread.test.ts). Usage: node --import tsx thread-child.ts ENTRY; prints one JSON line:
 * how the thread ended.
 */
import { startWorkerThread } from '../../../electron/threads/worker-thread';

const entry = new URL(process.argv[2] ?? '');
startWorkerThread(entry, null, {
  message: () => undefined,
  exit: (exitCode, error) => console.log(JSON.stringify({ exitCode, error: error?.message ?? null })),
});

/**
 * A worker thread's entry (background-jobs.ts starts it): parse the job's input, run it
 * (job-tasks.ts), post progress and one final message — the value, or the error as plain
 * data (job-protocol.ts) so an ImportError keeps its `file:line: field: reason`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import * as z from 'zod';
import { errorData } from '../importers/error-data';
import { WorkerJobInput, type WorkerMessage } from './job-protocol';
import { runJobTask } from './job-tasks';

function post(m: WorkerMessage): void {
  parentPort?.postMessage(m);
}

const data = z.object({ data: z.unknown() }).parse(workerData).data;
try {
  const input = WorkerJobInput.parse(data);
  const value = await runJobTask(input, {
    progress: (done, total, message) => post({ type: 'progress', done, total, message }),
    writing: (active) => post({ type: 'writing', active }),
    committed: () => post({ type: 'committed' }),
  });
  post({ type: 'done', value });
} catch (e) {
  post({ type: 'failed', error: errorData(e) });
}

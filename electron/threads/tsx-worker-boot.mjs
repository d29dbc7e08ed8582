// Development only (sources run through tsx or vitest, not the esbuild build): a worker thread
// does not inherit the parent's TypeScript loader, so it registers tsx's loader first and
// then imports the TypeScript entry it was given (electron/threads/worker-thread.ts).
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);

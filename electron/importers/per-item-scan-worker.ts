/**
 * The entry of a large per_item.csv's scan thread (per-item-scan.ts starts it). The thread's
 * work is per-item-scan-thread.ts, a module of its own so that tests can run it on their thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runScan } from './per-item-scan-thread';

runScan(workerData, (m) => parentPort?.postMessage(m));

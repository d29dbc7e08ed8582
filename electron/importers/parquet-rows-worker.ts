/**
 * The entry of a parquet table's decoding thread (parquet-rows.ts starts it). The thread's work
 * is parquet-rows-thread.ts, a module of its own so that tests can run it on their thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runDecode } from './parquet-rows-thread';

void runDecode(workerData, (m) => parentPort?.postMessage(m));

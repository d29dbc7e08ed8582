/**
 * What crosses the boundary between the thread that serves the UI and a job's worker thread
 * (docs/architecture.md "Long work is a job"): the job's input, then progress, and one final
 * message (its value, or its error as plain data: electron/importers/error-data.ts). Both sides
 * parse what they receive with these schemas: a worker is another module instance, and nothing
 * it sends is trusted to have the right shape.
 */
import * as z from 'zod';
import { ImportOptionValues } from '../../shared/api/import-options';
import { WorkerError } from '../threads/worker-thread';

export const WorkerJobInput = z.discriminatedUnion('kind', [
  /** Read files and apply them in one transaction (import-files.ts), under this process's writer lock. */
  z.object({ kind: z.literal('import'), project: z.string().min(1), paths: z.array(z.string().min(1)).min(1), options: ImportOptionValues }),
  /** Write the release layout from a read-only connection. */
  z.object({ kind: z.literal('export'), project: z.string().min(1), outDir: z.string().min(1), includeText: z.boolean(), zip: z.boolean() }),
  /** Merge another annotator's bundle (events by uuid) under this process's writer lock. */
  z.object({ kind: z.literal('merge'), project: z.string().min(1), path: z.string().min(1) }),
]);
export type WorkerJobInput = z.infer<typeof WorkerJobInput>;
export type WorkerJobKind = WorkerJobInput['kind'];

export const WorkerMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('progress'), done: z.number(), total: z.number(), message: z.string().nullable() }),
  /** The write transaction is about to begin / has ended (the UI thread holds its own writes meanwhile). */
  z.object({ type: z.literal('writing'), active: z.boolean() }),
  /** The job's transaction is committed: cancelling it now would only hide that it happened. */
  z.object({ type: z.literal('committed') }),
  z.object({ type: z.literal('done'), value: z.unknown() }),
  z.object({ type: z.literal('failed'), error: WorkerError }),
]);
export type WorkerMessage = z.infer<typeof WorkerMessage>;

/**
 * The shape of one contract operation (request schema, response schema, one-line doc, what it
 * does to the project), shared by contract.ts and the tables it spreads in (team-contract.ts,
 * sync-contract.ts), which cannot import it from contract.ts without a cycle.
 */
import * as z from 'zod';

/**
 * What an operation does to the open project, declared once here and acted on by the backend's
 * dispatch (electron/api/dispatch.ts `withEffects`), never by each handler
 * (docs/architecture.md "One contract, two transports").
 */
/** The parts of a project a `data:changed` event says changed. */
export type ChangeScope = 'project' | 'annotations' | 'settings';

export interface OpEffects<Request = unknown> {
  /**
   * It writes the project: on a read-only project it is refused, with the reason, before its
   * handler runs. `inline`: the thread that answers writes (and first waits, without blocking,
   * while a job holds the write transaction); `job`: a job's worker writes (import, merge).
   */
  writes?: 'inline' | 'job';
  /**
   * The `data:changed` scope its success announces, once, after it answered. The item is the
   * answer's `item`, else the answer itself when it names one (model, split, sampleId), else
   * none; an answer of null changed nothing and announces nothing. A function gives the scope
   * from the (parsed) request, for an operation whose reach depends on what it sets.
   */
  changes?: ChangeScope | ((request: Request) => ChangeScope);
}

export function op<Req extends z.ZodType, Res extends z.ZodType>(request: Req, response: Res, doc: string, effects: OpEffects<z.output<Req>> = {}) {
  return { request, response, doc, effects };
}

/** The request of an operation that takes nothing. */
export const Empty = z.object({}).strict();

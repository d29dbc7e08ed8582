/**
 * The shape of one contract operation (request schema, response schema, one-line doc), shared
 * by contract.ts and the tables it spreads in (team-contract.ts, sync-contract.ts), which
 * cannot import it from contract.ts without a cycle.
 */
import * as z from 'zod';

export function op<Req extends z.ZodType, Res extends z.ZodType>(request: Req, response: Res, doc: string) {
  return { request, response, doc };
}

/** The request of an operation that takes nothing. */
export const Empty = z.object({}).strict();

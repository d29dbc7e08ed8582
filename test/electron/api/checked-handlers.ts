/**
 * Handlers whose every output is parsed with the contract's response schema: tests call the
 * backend through this, so a handler whose output drifts from shared/api/contract.ts fails
 * the test that called it (dispatch parses only requests).
 */
import { isOpName, operations } from '../../../shared/api/contract';
import type { Handlers } from '../../../electron/api/dispatch';

export function checkedHandlers(handlers: Handlers): Handlers {
  const out: Record<string, (req: unknown) => Promise<unknown>> = {};
  for (const name of Object.keys(handlers)) {
    if (!isOpName(name)) throw new Error(`a handler for ${name}, which the contract does not list`);
    const h = handlers[name] as (req: unknown) => unknown;
    const schema = operations[name].response;
    out[name] = async (req) => {
      const value = await h(req);
      const parsed = schema.safeParse(value);
      if (!parsed.success) {
        const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(value)'}: ${i.message}`).join('; ');
        throw new Error(`${name}: the handler's output does not match the contract's response schema: ${issues}`);
      }
      return value;
    };
  }
  return out as unknown as Handlers;
}

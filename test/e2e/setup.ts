/**
 * Runs around every e2e test: no test may leave console errors or failed requests on its
 * pages, and a failed test prints what its pages showed and its servers said.
 */
import { afterEach } from 'vitest';
import { expectNoPageProblems, failureReport } from './harness';

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail') console.error(`[e2e] after the failure of "${ctx.task.name}":\n${await failureReport()}`);
  expectNoPageProblems();
});

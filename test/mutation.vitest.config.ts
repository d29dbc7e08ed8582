// The unit suite as Stryker runs it for one folder (scripts/mutation.js): only the tests that
// judge that folder (FLIPBOOK_MUTATION_TESTS, a folder under test/), so that its dry run and
// each mutant's run are not the whole suite's. (mergeConfig would append to `include`, not
// replace it.)
import { defineConfig } from 'vitest/config';
import base from '../vitest.config';

const tests = process.env.FLIPBOOK_MUTATION_TESTS ?? 'test';
// Test files scripts/mutation.js leaves out of a folder's run (it says which and why).
const skip = (process.env.FLIPBOOK_MUTATION_SKIP ?? '').split(',').filter((f) => f !== '');
export default defineConfig({ ...base, test: { ...base.test, include: [`${tests}/**/*.test.ts`], exclude: [...(base.test?.exclude ?? []), ...skip] } });

import { defineConfig } from 'vitest/config';
import path from 'node:path';

// The browser suite: builds the renderer and makes the sample project once (global-setup.ts), runs the web mode and
// drives Debian's Chromium through playwright-core. Run: npx vitest run --config test/e2e/vitest.config.ts
export default defineConfig({
  root: path.resolve(import.meta.dirname, '../..'),
  test: {
    include: ['test/e2e/**/*.e2e.test.ts'],
    // Fails any test whose pages logged a console error or a failed request (harness.ts).
    setupFiles: ['test/e2e/setup.ts'],
    // The renderer build and the sample project, made once per run and shared by every file.
    globalSetup: ['test/e2e/global-setup.ts'],
    testTimeout: 180_000,
    // expect.poll waits for a condition the page reaches by itself (a save answered, a list
    // scrolled); its default of 1 s is shorter than one answer takes on a loaded 2-core CI
    // machine. A condition never met still fails, after this long.
    expect: { poll: { timeout: 15_000 } },
    hookTimeout: 240_000,
    // One browser and one server at a time: the flows share the sample project.
    fileParallelism: false,
    maxWorkers: 1,
  },
});

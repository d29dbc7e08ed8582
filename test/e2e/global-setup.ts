/**
 * Once per e2e run (vitest globalSetup): build the renderer into dist/renderer and make the
 * sample project, instead of every file doing both. Files get a fresh copy of the sample
 * project from harness.makeSampleProject() (tests write annotations into theirs), so sharing
 * the build changes no test's starting state.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildRenderer, flipbookCli } from './harness';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A folder holding the sample project (sample.flipbook + media/) made by `flipbook sample-project`. */
    sampleTemplate: string;
  }
}

export default function setup(project: TestProject): () => void {
  const t0 = performance.now();
  buildRenderer();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flipbook-e2e-template-'));
  const r = flipbookCli('sample-project', '--out', dir);
  if (r.status !== 0) throw new Error(`sample-project failed:\n${r.stdout}\n${r.stderr}`);
  project.provide('sampleTemplate', dir);
  console.log(`[e2e] renderer built and sample project made once in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return () => fs.rmSync(dir, { recursive: true, force: true });
}

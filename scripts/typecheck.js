#!/usr/bin/env node
// Typechecks each layer with its own tsconfig, so that e.g. shared/ cannot use Node or DOM
// types and renderer/ cannot use Node's (docs/architecture.md: the direction is enforced mechanically).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
const layers = ['shared', 'electron', 'renderer', 'test'];
let failed = false;
for (const layer of layers) {
  const dir = layer;
  if (!existsSync(dir) || readdirSync(dir).length === 0) continue;
  const r = spawnSync(process.execPath, [tsc, '-p', `tsconfig.${layer}.json`, '--noEmit'], { stdio: 'inherit' });
  if (r.status !== 0) { failed = true; console.error(`typecheck failed: ${layer}/`); }
}
process.exit(failed ? 1 : 0);

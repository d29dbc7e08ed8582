#!/usr/bin/env node
// Typechecks each layer with its own tsconfig, so that e.g. shared/ cannot use Node or DOM
// types and renderer/ cannot use Node's (docs/architecture.md: the direction is enforced mechanically).
// The layers are composite projects that reference the layers they may import (tsconfig.json),
// built with `tsc -b`: a layer is checked again only when it or a layer it imports changed, and
// each file once, in its own layer (docs/architecture.md "Layers"). Build info and the
// declarations a layer's importers read go to .cache/tsc/ (ignored by git).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-b', 'tsconfig.json', ...process.argv.slice(2)], { stdio: 'inherit' });
if (r.status !== 0) console.error('typecheck failed');
process.exit(r.status ?? 1);

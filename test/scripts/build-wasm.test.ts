// The generated WebAssembly modules must be what their AssemblyScript sources compile to: a
// kernel edited without `node scripts/build-wasm.js` would otherwise ship its old bytes.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');

it('the generated kernels match their sources (scripts/build-wasm.js --check)', () => {
  const r = spawnSync(process.execPath, [path.join(root, 'scripts/build-wasm.js'), '--check'], { cwd: root, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
});

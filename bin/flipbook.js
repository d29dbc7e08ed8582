#!/usr/bin/env node
// The CLI runs the TypeScript sources directly through tsx, so `npx flipbook` works right
// after `npm ci` with no build step (the Electron bundle is built separately).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../electron/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));

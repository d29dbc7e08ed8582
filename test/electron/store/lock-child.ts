/**
 * A process that takes a project's writer lock on command, for the lock race harness
 * (lock.test.ts). Usage: node --import tsx lock-child.ts; then on stdin, one per line:
 * `go <project>` → prints `won` or `lost`; `release` → releases a held lock, prints `released`.
 */
import readline from 'node:readline';
import { acquireLock, type ProjectLock } from '../../../electron/store/lock';

let held: ProjectLock | null = null;
console.log('ready');
for await (const line of readline.createInterface({ input: process.stdin })) {
  const [cmd, arg] = line.split(' ');
  if (cmd === 'go' && arg) {
    try {
      held = acquireLock(arg);
      console.log('won');
    } catch (e) {
      console.log(`lost ${(e as Error).name}`);
    }
  } else if (cmd === 'release') {
    held?.release();
    held = null;
    console.log('released');
  }
}

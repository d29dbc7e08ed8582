/**
 * Child process for the crash test: applies edits to a project one by one, printing
 * `saved <n>` after each committed edit, then idles until the parent kills it with SIGKILL.
 * Usage: node --import tsx annotate-child.ts <project> <count>
 */
import { openProject } from '../../../electron/store/index';

const [file, countArg] = process.argv.slice(2);
if (!file || !countArg) throw new Error('usage: annotate-child.ts <project> <count>');
const project = openProject(file);
const count = Number(countArg);
for (let i = 0; i < count; i++) {
  const sampleId = `item-${i % 4}`;
  if (i % 3 === 0) project.annotations.apply({ op: 'setPathway', model: 'm', split: 's', sampleId, pathway: `p${i}`, on: true }, 'crash');
  else if (i % 3 === 1) project.annotations.apply({ op: 'setNotes', model: 'm', split: 's', sampleId, notes: `note ${i}` }, 'crash');
  else project.annotations.apply({ op: 'addSpan', model: 'm', split: 's', sampleId, span: { id: `span-${i}`, startS: i, endS: i + 1, coveredBy: ['16f'] } }, 'crash');
  process.stdout.write(`saved ${i + 1}\n`);
}
process.stdout.write('ready\n');
// Keep the project (and its lock) open, as a running app would, until killed.
setInterval(() => undefined, 1 << 30);

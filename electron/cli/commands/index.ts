import type { CliCommand } from '../command';
import { exportCommand } from './export';
import { sampleFramesCommand } from './sample-frames';
import { sampleProjectCommand } from './sample-project';
import { serveCommand } from './serve';

// Each command file exports one CliCommand; add it here (one line each, keep alphabetical).
export const commands: CliCommand[] = [
  exportCommand,
  sampleFramesCommand,
  sampleProjectCommand,
  serveCommand,
];

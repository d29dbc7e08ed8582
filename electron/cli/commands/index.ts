import type { CliCommand } from '../command';
import { sampleFramesCommand } from './sample-frames';
import { sampleProjectCommand } from './sample-project';

// Each command file exports one CliCommand; add it here (one line each, keep alphabetical).
export const commands: CliCommand[] = [
  sampleFramesCommand,
  sampleProjectCommand,
];

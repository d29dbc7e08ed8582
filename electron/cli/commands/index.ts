import type { CliCommand } from '../command';
import { agreementCommand } from './agreement';
import { cascadeCommand } from './cascade';
import { exportCommand } from './export';
import { extractFramesCommand } from './extract-frames';
import { framesCommand } from './frames';
import { importCommand } from './import';
import { mergeCommand } from './merge';
import { metricsCommand } from './metrics';
import { probeCommand } from './probe';
import { sampleFramesCommand } from './sample-frames';
import { sampleProjectCommand } from './sample-project';
import { serveCommand } from './serve';

// Each command file exports one CliCommand; add it here (one line each, keep alphabetical).
export const commands: CliCommand[] = [
  agreementCommand,
  cascadeCommand,
  exportCommand,
  extractFramesCommand,
  framesCommand,
  importCommand,
  mergeCommand,
  metricsCommand,
  probeCommand,
  sampleFramesCommand,
  sampleProjectCommand,
  serveCommand,
];
